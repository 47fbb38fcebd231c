package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ghost-mpi/ghost/redirect"
)

// slurmEnv is salloc -N2 --ntasks-per-node=3 on the test cluster.
func slurmEnv(extra map[string]string) map[string]string {
	m := map[string]string{"SLURM_JOB_ID": "5", "SLURM_JOB_NUM_NODES": "2", "SLURM_JOB_NODELIST": "n[1-2]",
		"SLURM_JOB_CPUS_PER_NODE": "3(x2)", "SLURM_TASKS_PER_NODE": "3(x2)"}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestSlurmLaunchCommand(t *testing.T) {
	noHydra := func(string) (string, error) { return "", errors.New("not found") }
	hydra := func(n string) (string, error) { return "/usr/bin/" + n, nil }
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
		err  string
	}{
		{name: "issue 15: -n 4 gives 2 users and 1 ghost per node through srun", args: []string{"-n", "4", "--", "./app", "x"}, env: slurmEnv(nil),
			want: "srun --mpi=pmi2 -N2 -n6 --ntasks-per-node=3 --export=ALL,LD_PRELOAD=/g/libghost.so,GHOST_NG=1 ./app x"},
		{name: "through hydra", args: []string{"-n", "4", "--", "./app"}, env: slurmEnv(map[string]string{"GHOST_LAUNCHER": "hydra"}),
			want: "/usr/bin/mpiexec.hydra -launcher slurm -hosts n1:3,n2:3 -n 6 -genv LD_PRELOAD /g/libghost.so -genv GHOST_NG 1 ./app"},
		{name: "uneven: srun balances -n over -N", args: []string{"-n", "3", "--", "./app"}, env: slurmEnv(nil),
			want: "srun --mpi=pmi2 -N2 -n5 --export=ALL,LD_PRELOAD=/g/libghost.so,GHOST_NG=1 ./app"},
		{name: "uneven through hydra: explicit counts", args: []string{"-n", "3", "--", "./app"}, env: slurmEnv(map[string]string{"GHOST_LAUNCHER": "hydra"}),
			want: "/usr/bin/mpiexec.hydra -launcher slurm -hosts n1:3,n2:2 -n 5 -genv LD_PRELOAD /g/libghost.so -genv GHOST_NG 1 ./app"},
		{name: "one user: one node, auto gives no ghost", args: []string{"-n", "1", "--", "./app"}, env: slurmEnv(nil),
			want: "srun --mpi=pmi2 -N1 -n1 --ntasks-per-node=1 --export=ALL,LD_PRELOAD=/g/libghost.so,GHOST_NG=0 ./app"},
		{name: "GHOST_SRUN, launcher arguments, existing preload, explicit -g", args: []string{"-n", "2", "-g", "2", "--mpiexec-arg", "--label", "--", "./app"},
			env:  slurmEnv(map[string]string{"GHOST_SRUN": "/opt/slurm/bin/srun", "LD_PRELOAD": "/x.so", "SLURM_JOB_CPUS_PER_NODE": "8(x2)"}),
			want: "/opt/slurm/bin/srun --mpi=pmi2 -N2 -n6 --ntasks-per-node=3 --export=ALL,LD_PRELOAD=/g/libghost.so:/x.so,GHOST_NG=2 --label ./app"},
		{name: "does not fit", args: []string{"-n", "6", "--", "./app"}, env: slurmEnv(nil),
			err: "ask Slurm for --ntasks-per-node=4"},
		{name: "bad launcher", args: []string{"-n", "2", "--", "./app"}, env: slurmEnv(map[string]string{"GHOST_LAUNCHER": "ssh"}),
			err: `GHOST_LAUNCHER="ssh" is not valid: accepted values are srun or hydra`},
		{name: "hydra missing", args: []string{"-n", "2", "--", "./app"}, env: slurmEnv(map[string]string{"GHOST_LAUNCHER": "hydra"}), err: "no mpiexec"},
		{name: "comma in the preload", args: []string{"-n", "2", "--", "./app"}, env: slurmEnv(map[string]string{"LD_PRELOAD": "/a,b.so"}), err: "contains a comma"},
		{name: "unreadable allocation", args: []string{"-n", "2", "--", "./app"}, env: slurmEnv(map[string]string{"SLURM_JOB_NODELIST": "n[1-"}), err: "reading the Slurm allocation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := env(tt.env)
			o, err := parseRunArgs(tt.args, getenv, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if !inSlurm(o, getenv) {
				t.Fatal("not seen as inside an allocation")
			}
			lookPath := hydra
			if strings.Contains(tt.err, "no mpiexec") {
				lookPath = noHydra
			}
			cmd, _, _, err := slurmLaunchCommand(o, getenv, lookPath, "/g/libghost.so")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %q, %v; want error with %q", cmd, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := shellJoin(cmd); got != tt.want {
				t.Errorf("command\n  %s\nwant\n  %s", got, tt.want)
			}
		})
	}
}

// --hosts keeps meaning fake nodes on this machine, even in an allocation.
func TestSlurmNotWithHosts(t *testing.T) {
	getenv := env(slurmEnv(nil))
	o, err := parseRunArgs([]string{"-n", "4", "--hosts", "a:3,b:3", "--", "./app"}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if inSlurm(o, getenv) {
		t.Error("--hosts inside an allocation should fake nodes, not use Slurm")
	}
	if inSlurm(runOptions{users: 1}, env(nil)) {
		t.Error("seen inside an allocation without SLURM_JOB_ID")
	}
}

func TestSlurmExecEnv(t *testing.T) {
	environ := []string{"A=1", "SLURM_NTASKS_PER_NODE=3", "SLURM_NTASKS=6"}
	even := redirect.SlurmPlan{Even: true}
	uneven := redirect.SlurmPlan{}
	if got := slurmExecEnv(environ, even, launcherSrun); !reflect.DeepEqual(got, environ) {
		t.Errorf("even plan: %v", got)
	}
	if got := slurmExecEnv(environ, uneven, launcherHydra); !reflect.DeepEqual(got, environ) {
		t.Errorf("hydra: %v", got)
	}
	if got, want := slurmExecEnv(environ, uneven, launcherSrun), []string{"A=1", "SLURM_NTASKS=6"}; !reflect.DeepEqual(got, want) {
		t.Errorf("uneven srun: %v, want %v", got, want)
	}
}

func TestSrunArgsCommand(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "libghost.so")
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		code int
		out  string
		err  string
	}{
		{name: "outside, planned for 2 nodes", args: []string{"-n", "4", "-N", "2"}, code: 0,
			out: "--mpi=pmi2 -N2 -n6 --ntasks-per-node=3 --export=ALL,LD_PRELOAD=" + lib + ",GHOST_NG=1\n"},
		{name: "outside, one node: auto gives no ghost", args: []string{"-n", "2", "-N", "1"}, code: 0,
			out: "--mpi=pmi2 -N1 -n2 --ntasks-per-node=2 --export=ALL,LD_PRELOAD=" + lib + ",GHOST_NG=0\n"},
		{name: "outside without -N", args: []string{"-n", "4"}, code: 2, err: "give -N"},
		{name: "inside", args: []string{"-n", "4", "-g", "1"}, env: slurmEnv(nil), code: 0,
			out: "--mpi=pmi2 -N2 -n6 --ntasks-per-node=3 --export=ALL,LD_PRELOAD=" + lib + ",GHOST_NG=1\n"},
		{name: "inside, too small", args: []string{"-n", "6"}, env: slurmEnv(nil), code: 2, err: "ask Slurm for --ntasks-per-node=4"},
		{name: "inside with -N", args: []string{"-n", "4", "-N", "1"}, env: slurmEnv(nil), code: 2, err: "-N is for planning outside"},
		{name: "a program", args: []string{"-n", "4", "-N", "2", "./app"}, code: 2, err: "unexpected arguments"},
		{name: "no -n", args: []string{"-N", "2"}, code: 2, err: "-n is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []string{"SLURM_JOB_ID", "SLURM_JOBID", "SLURM_JOB_NUM_NODES", "SLURM_NNODES", "SLURM_JOB_NODELIST", "SLURM_NODELIST",
				"SLURM_JOB_CPUS_PER_NODE", "SLURM_TASKS_PER_NODE", "SLURM_CPUS_PER_TASK", "GHOST_NG", "CSP_NG", "LD_PRELOAD"} {
				t.Setenv(v, "")
			}
			t.Setenv("GHOST_LIB", lib)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stdout, stderr strings.Builder
			code := srunArgsCommand(tt.args, &stdout, &stderr)
			if code != tt.code || stdout.String() != tt.out || !strings.Contains(stderr.String(), tt.err) {
				t.Errorf("status %d, stdout %q, stderr %q; want %d, %q, error with %q", code, stdout.String(), stderr.String(), tt.code, tt.out, tt.err)
			}
		})
	}
}

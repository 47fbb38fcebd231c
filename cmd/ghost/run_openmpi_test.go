package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMpirunCommand(t *testing.T) {
	env := []string{"PATH=/bin", "GHOST_WAIT=yield", "GHOST_NG=7", "CSP_NG=3", "HOME=/root"}
	tests := []struct {
		name string
		o    runOptions
		env  []string
		root bool
		want string
		err  string
	}{
		{name: "one host", o: runOptions{users: 2, ghosts: 1, program: []string{"./a"}},
			want: "mpirun --oversubscribe --bind-to none -n 3 -x LD_PRELOAD=/l/libghost-openmpi.so -x GHOST_NG=1 ./a"},
		{name: "root", o: runOptions{users: 2, program: []string{"./a"}}, root: true,
			want: "mpirun --oversubscribe --bind-to none --allow-run-as-root -n 2 -x LD_PRELOAD=/l/libghost-openmpi.so -x GHOST_NG=0 ./a"},
		{name: "variables forwarded, GHOST_NG set by -g", o: runOptions{users: 1, ghosts: 1, program: []string{"./a", "b"}}, env: env,
			want: "mpirun --oversubscribe --bind-to none -n 2 -x LD_PRELOAD=/l/libghost-openmpi.so -x GHOST_NG=1 -x CSP_NG -x GHOST_WAIT ./a b"},
		{name: "existing preload kept after Ghost's", o: runOptions{users: 1, ghosts: 1, mpiexecArgs: []string{"--mca", "osc", "pt2pt"}, program: []string{"./a"}},
			env:  []string{"LD_PRELOAD=/x.so"},
			want: "mpirun --oversubscribe --bind-to none -n 2 -x LD_PRELOAD=/l/libghost-openmpi.so:/x.so -x GHOST_NG=1 --mca osc pt2pt ./a"},
		{name: "fake nodes", o: runOptions{users: 3, ghosts: 1, hosts: "nodeA:3,nodeB:3", program: []string{"./a"}},
			want: "mpirun --oversubscribe --bind-to none --mca plm_rsh_agent '/g/ghost openmpi-fake-node' -H nodeA:3,nodeB:2 --map-by slot --mca osc '^ucx' --mca rtc_hwloc_vmhole none -n 5 -x LD_PRELOAD=/l/libghost-openmpi.so -x GHOST_NG=1 ./a"},
		{name: "fake nodes, the user's osc", o: runOptions{users: 2, ghosts: 1, hosts: "nodeA:2,nodeB:2", mpiexecArgs: []string{"--mca", "osc", "ucx"}, program: []string{"./a"}},
			want: "mpirun --oversubscribe --bind-to none --mca plm_rsh_agent '/g/ghost openmpi-fake-node' -H nodeA:2,nodeB:2 --map-by slot --mca rtc_hwloc_vmhole none -n 4 -x LD_PRELOAD=/l/libghost-openmpi.so -x GHOST_NG=1 --mca osc ucx ./a"},
		{name: "fake nodes, osc in the environment", o: runOptions{users: 2, ghosts: 1, hosts: "nodeA:2,nodeB:2", program: []string{"./a"}}, env: []string{"OMPI_MCA_osc=pt2pt"},
			want: "mpirun --oversubscribe --bind-to none --mca plm_rsh_agent '/g/ghost openmpi-fake-node' -H nodeA:2,nodeB:2 --map-by slot --mca rtc_hwloc_vmhole none -n 4 -x LD_PRELOAD=/l/libghost-openmpi.so -x GHOST_NG=1 ./a"},
		{name: "fake nodes, the user's VM hole", o: runOptions{users: 2, ghosts: 1, hosts: "nodeA:2,nodeB:2", mpiexecArgs: []string{"--mca", "rtc_hwloc_vmhole", "heap"}, program: []string{"./a"}},
			want: "mpirun --oversubscribe --bind-to none --mca plm_rsh_agent '/g/ghost openmpi-fake-node' -H nodeA:2,nodeB:2 --map-by slot --mca osc '^ucx' -n 4 -x LD_PRELOAD=/l/libghost-openmpi.so -x GHOST_NG=1 --mca rtc_hwloc_vmhole heap ./a"},
		{name: "too few slots", o: runOptions{users: 5, ghosts: 1, hosts: "nodeA:3,nodeB:3", program: []string{"./a"}},
			err: "cannot hold 5 users plus 1 ghost(s) per host"},
		{name: "bad hosts", o: runOptions{users: 1, hosts: "nodeA", program: []string{"./a"}}, err: "expected host:slots"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, err := mpirunCommand(tt.o, "mpirun", "/l/libghost-openmpi.so", "/g/ghost", tt.env, tt.root)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := shellJoin(cmd); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestFindLibraryFor(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "bin", "ghost")
	lib := filepath.Join(dir, "lib", "libghost-openmpi.so")
	if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := findLibraryFor(openMPIABI, env(nil), exe); err == nil || !strings.Contains(err.Error(), "set GHOST_LIB_OPENMPI") {
		t.Errorf("no library: err = %v, want one naming GHOST_LIB_OPENMPI", err)
	}
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := findLibraryFor(openMPIABI, env(nil), exe); err != nil || got != lib {
		t.Errorf("../lib: got %q, %v; want %q", got, err, lib)
	}
	// The MPICH library is not taken for Open MPI, nor the other way round.
	if _, err := findLibraryFor(mpichABI, env(nil), exe); err == nil {
		t.Error("libghost.so found where only libghost-openmpi.so is")
	}
	if _, err := findLibraryFor(openMPIABI, env(map[string]string{"GHOST_LIB_OPENMPI": "/nonexistent.so"}), exe); err == nil ||
		!strings.Contains(err.Error(), `GHOST_LIB_OPENMPI="/nonexistent.so"`) {
		t.Errorf("bad GHOST_LIB_OPENMPI: err = %v", err)
	}
}

func TestFindMpirun(t *testing.T) {
	only := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			for _, m := range names {
				if n == m {
					return "/usr/bin/" + n, nil
				}
			}
			return "", errors.New("not found")
		}
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		path func(string) (string, error)
		want string
	}{
		{"Debian's name", nil, only("mpirun", "mpirun.openmpi", "orterun"), "/usr/bin/mpirun.openmpi"},
		{"orterun", nil, only("mpirun", "orterun"), "/usr/bin/orterun"},
		{"variable", map[string]string{"GHOST_MPIRUN": "/opt/ompi/bin/mpirun"}, only(), "/opt/ompi/bin/mpirun"},
		{"plain mpirun is not taken", nil, only("mpirun"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := findMpirun(env(tc.env), tc.path)
			if got != tc.want || (tc.want == "") != (err != nil) {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestFakeNodeCommand(t *testing.T) {
	host, script, err := fakeNodeCommand([]string{"-x", "nodeB", "orted", "-mca", "ess", `"env"`})
	if err != nil || host != "nodeB" || script != `orted -mca ess "env"` {
		t.Errorf("got %q, %q, %v", host, script, err)
	}
	for _, bad := range [][]string{nil, {"nodeB"}, {"-x"}, {"../x", "orted"}} {
		if _, _, err := fakeNodeCommand(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	tmp, shm := fakeNodeDirs("nodeA", 5, true)
	if !strings.HasSuffix(tmp, "ghost-fake-nodes-5/nodeA") || shm != "/dev/shm/ghost-fake-nodes-5/nodeA" {
		t.Errorf("dirs %q, %q", tmp, shm)
	}
	if _, shm := fakeNodeDirs("nodeA", 5, false); shm != tmp {
		t.Errorf("without /dev/shm: %q, want %q", shm, tmp)
	}
}

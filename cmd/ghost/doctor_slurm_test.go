package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ghost-mpi/ghost/internal/config"
)

func TestDoctorSlurm(t *testing.T) {
	lookPath := func(n string) (string, error) { return "/usr/bin/" + n, nil }
	tests := []struct {
		name    string
		users   int
		env     map[string]string
		text    []string
		errText string
	}{
		{name: "issue 15 allocation", users: 4, env: slurmEnv(nil), text: []string{
			"Slurm job: 5 (inside an allocation: ghost run launches with srun)",
			"nodes: 2: n1, n2",
			"tasks per node: 3, 3 (from SLURM_JOB_CPUS_PER_NODE)",
			"command: srun --mpi=pmi2 -N2 -n6 --ntasks-per-node=3 --export=ALL,LD_PRELOAD=/g/libghost.so,GHOST_NG=1 PROGRAM",
			"Node layout (dry run of ghost run -n 4 -g 1 in Slurm job 5)",
			"node n1: 2 users, 1 ghost", "node n2: 2 users, 1 ghost",
			"processes: 6, on the allocation's nodes",
		}},
		{name: "hydra", users: 4, env: slurmEnv(map[string]string{"GHOST_LAUNCHER": "hydra"}), text: []string{
			"launches with hydra", "command: /usr/bin/mpiexec.hydra -launcher slurm -hosts n1:3,n2:3 -n 6",
		}},
		{name: "too small", users: 6, env: slurmEnv(nil), errText: "ask Slurm for --ntasks-per-node=4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := env(tt.env)
			o := doctorOptions{users: tt.users}
			var err error
			if o.ghosts, err = ghostCount("", getenv, tt.users, ""); err != nil {
				t.Fatal(err)
			}
			if !slurmAlloc(o, getenv) {
				t.Fatal("not inside an allocation")
			}
			r := &Report{Schema: doctorSchema, Warnings: []string{}, Errors: []string{}}
			r.Slurm, r.Layout = slurmSection(o, getenv, lookPath, "/g/libghost.so", 2, config.WaitAdaptive)
			layoutFindings(r)
			var b bytes.Buffer
			writeText(&b, r)
			words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
			out := words(b.String())
			for _, want := range tt.text {
				if !strings.Contains(out, words(want)) {
					t.Errorf("report lacks %q:\n%s", want, b.String())
				}
			}
			if tt.errText != "" && (len(r.Errors) != 1 || !strings.Contains(r.Errors[0], tt.errText)) {
				t.Errorf("errors %q, want one with %q", r.Errors, tt.errText)
			}
			if tt.errText == "" && (len(r.Errors) != 0 || r.Layout.Oversubscribed) {
				t.Errorf("errors %q, oversubscribed %v", r.Errors, r.Layout.Oversubscribed)
			}
			js, _ := json.Marshal(r)
			for _, k := range []string{`"slurm":{"job_id":"5"`, `"nodes":["n1","n2"]`, `"capacity":[3,3]`} {
				if !strings.Contains(string(js), k) {
					t.Errorf("JSON lacks %s: %s", k, js)
				}
			}
		})
	}
}

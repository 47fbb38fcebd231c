package main

import (
	"reflect"
	"testing"
)

func TestFindSuites(t *testing.T) {
	tests := []struct {
		list    string
		want    []string
		wantErr bool
	}{
		{list: "all", want: suiteNames()},
		{list: "intercept", want: []string{"intercept"}},
		{list: " intercept ", want: []string{"intercept"}},
		{list: "intercept,nope", wantErr: true},
		{list: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := findSuites(tt.list)
		if (err != nil) != tt.wantErr {
			t.Errorf("findSuites(%q) error %v, wantErr %v", tt.list, err, tt.wantErr)
			continue
		}
		var names []string
		for _, s := range got {
			names = append(names, s.Name)
		}
		if !reflect.DeepEqual(names, tt.want) {
			t.Errorf("findSuites(%q) = %v, want %v", tt.list, names, tt.want)
		}
	}
}

// Every suite must name known configurations and a program, or it fails only
// when someone finally runs it.
func TestSuitesAreRunnable(t *testing.T) {
	for _, s := range suites {
		program := s.Program != "" && s.Args != nil
		if program == (len(s.Workloads) > 0) || len(s.Configs) == 0 {
			t.Errorf("suite %q is incomplete: it needs configurations, and a program with arguments or workloads", s.Name)
		}
		smoke := false
		for _, w := range s.Workloads {
			smoke = smoke || w.Smoke
			if w.Name == "" || w.Setup == nil || w.Judge == nil {
				t.Errorf("suite %q: workload %q is incomplete", s.Name, w.Name)
			}
		}
		if len(s.Workloads) > 0 && !smoke {
			t.Errorf("suite %q: no workload runs in a smoke run", s.Name)
		}
		for _, c := range s.Configs {
			if _, err := configByName(c); err != nil {
				t.Errorf("suite %q: %v", s.Name, err)
			}
		}
	}
}

func TestConfigCommands(t *testing.T) {
	l := Launch{Mpiexec: "/usr/bin/mpiexec.hydra", Ghost: "/b/ghost", Users: 2}
	prog := []string{"/tmp/intercept", "-r", "3"}
	tests := []struct {
		config string
		want   []string
		env    []string
	}{
		{"plain", []string{"/usr/bin/mpiexec.hydra", "-n", "2", "/tmp/intercept", "-r", "3"}, nil},
		{"ghost-ng0", []string{"/b/ghost", "run", "-n", "2", "-g", "0", "--", "/tmp/intercept", "-r", "3"}, nil},
		{"ghost-ng1", []string{"/b/ghost", "run", "-n", "2", "-g", "1", "--", "/tmp/intercept", "-r", "3"}, nil},
		{"ghost-ng1-prof", []string{"/b/ghost", "run", "-n", "2", "-g", "1", "--", "/tmp/intercept", "-r", "3"}, []string{"GHOST_PROFILE=1"}},
	}
	for _, tt := range tests {
		c, err := configByName(tt.config)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Command(l, prog); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: command %q, want %q", tt.config, got, tt.want)
		}
		if !reflect.DeepEqual(c.Env, tt.env) {
			t.Errorf("%s: env %q, want %q", tt.config, c.Env, tt.env)
		}
	}
	if _, err := configByName("nope"); err == nil {
		t.Error("configByName(nope) succeeded")
	}
}

func TestRoundsFor(t *testing.T) {
	tests := []struct {
		name string
		o    options
		s    Suite
		want int
	}{
		{"default", options{}, Suite{}, 5},
		{"the suite's", options{}, Suite{Rounds: 3}, 3},
		{"smoke", options{smoke: true}, Suite{Rounds: 3}, 1},
		{"-rounds wins", options{rounds: 7, smoke: true}, Suite{Rounds: 3}, 7},
	}
	for _, tt := range tests {
		if got := tt.o.roundsFor(tt.s); got != tt.want {
			t.Errorf("%s: roundsFor = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestDerivedConfigs(t *testing.T) {
	l := Launch{Mpiexec: "mpiexec", Ghost: "ghost", Users: 2}
	tests := []struct {
		name     string
		wantCmd  []string
		wantEnv  []string
		wantArgs []string
	}{
		{"plain", []string{"mpiexec", "-n", "2", "prog"}, nil, nil},
		{"mpich-thread", []string{"mpiexec", "-n", "2", "prog"}, []string{"MPIR_CVAR_ASYNC_PROGRESS=1"}, nil},
		{"ghost-off", []string{"ghost", "run", "-n", "2", "-g", "1", "--", "prog"}, nil, []string{"-O"}},
		{"mpich-thread-sleep", []string{"mpiexec", "-n", "2", "prog"}, []string{"MPIR_CVAR_ASYNC_PROGRESS=1"}, []string{"-i", "sleep"}},
		{"ghost-ng1-spin", []string{"ghost", "run", "-n", "2", "-g", "1", "--", "prog"}, []string{"GHOST_NODE_LOCAL=off", "GHOST_WAIT=spin"}, nil},
		{"static-off", []string{"ghost", "run", "-n", "2", "-g", "1", "--", "prog"}, []string{"GHOST_NODE_LOCAL=off", "GHOST_ASYNC=off"}, []string{"static"}},
		{"U", []string{"ghost", "run", "-n", "2", "-g", "1", "--", "prog"}, []string{"GHOST_NODE_LOCAL=off", "GHOST_ASYNC=on"}, []string{"user"}},
		{"GP", []string{"ghost", "run", "-n", "2", "-g", "1", "--", "prog"},
			[]string{"GHOST_NODE_LOCAL=off", "GHOST_ASYNC=auto", "GHOST_PREDICT_INT=10ms", "GHOST_GSYNC_INT=10ms"}, []string{"static"}},
		{"ghost", []string{"ghost", "run", "-n", "2", "--", "prog"}, nil, nil},
		{"ghost-ghostpath", []string{"ghost", "run", "-n", "2", "-g", "1", "--", "prog"}, []string{"GHOST_NODE_LOCAL=off"}, nil},
		{"plain-2nodes", []string{"mpiexec", "-launcher", "fork", "-hosts", "nodeA:1,nodeB:1", "-n", "2", "prog"}, nil, nil},
		{"ghost-2nodes", []string{"ghost", "run", "--hosts", "nodeA:2,nodeB:2", "-n", "2", "-g", "1", "--", "prog"}, nil, nil},
	}
	for _, tt := range tests {
		c, err := configByName(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Command(l, []string{"prog"}); !reflect.DeepEqual(got, tt.wantCmd) {
			t.Errorf("%s: command %v, want %v", tt.name, got, tt.wantCmd)
		}
		if !reflect.DeepEqual(c.Env, tt.wantEnv) || !reflect.DeepEqual(c.ProgArgs, tt.wantArgs) {
			t.Errorf("%s: env %v args %v, want %v %v", tt.name, c.Env, c.ProgArgs, tt.wantEnv, tt.wantArgs)
		}
	}
	// Deriving must not share slices with the parent.
	if base, _ := configByName("mpich-thread"); len(base.ProgArgs) != 0 {
		t.Errorf("mpich-thread picked up arguments: %v", base.ProgArgs)
	}
}

func TestConfigNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range configs {
		if seen[c.Name] {
			t.Errorf("configuration %q defined twice", c.Name)
		}
		seen[c.Name] = true
	}
	names := map[string]bool{}
	for _, s := range suites {
		if names[s.Name] {
			t.Errorf("suite %q defined twice", s.Name)
		}
		names[s.Name] = true
	}
}

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
		if s.Program == "" || s.Args == nil || len(s.Configs) == 0 {
			t.Errorf("suite %q is incomplete", s.Name)
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

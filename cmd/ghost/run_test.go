package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseRunArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want runOptions
		err  string
	}{
		{name: "minimal: auto, one host, no ghost", args: []string{"-n", "2", "--", "./a"}, want: runOptions{users: 2, ghosts: 0, program: []string{"./a"}}},
		{name: "auto on two fake nodes", args: []string{"-n", "4", "--hosts", "a:3,b:3", "--", "./a"}, want: runOptions{users: 4, ghosts: 1, hosts: "a:3,b:3", program: []string{"./a"}}},
		{name: "auto when one host holds every user", args: []string{"-n", "2", "--hosts", "a:4,b:4", "--", "./a"}, want: runOptions{users: 2, ghosts: 0, hosts: "a:4,b:4", program: []string{"./a"}}},
		{name: "auto flag", args: []string{"-n", "4", "-g", "auto", "--hosts", "a:3,b:3", "--", "./a"}, env: map[string]string{"GHOST_NG": "2"}, want: runOptions{users: 4, ghosts: 1, hosts: "a:3,b:3", program: []string{"./a"}}},
		{name: "auto env", args: []string{"-n", "2", "--", "./a"}, env: map[string]string{"GHOST_NG": "auto"}, want: runOptions{users: 2, ghosts: 0, program: []string{"./a"}}},
		{name: "ghosts flag", args: []string{"-n", "2", "-g", "2", "./a", "x"}, want: runOptions{users: 2, ghosts: 2, program: []string{"./a", "x"}}},
		{name: "env ghosts", args: []string{"-n", "2", "--", "./a"}, env: map[string]string{"GHOST_NG": "3"}, want: runOptions{users: 2, ghosts: 3, program: []string{"./a"}}},
		{name: "flag beats env", args: []string{"-n", "2", "-g", "0", "--", "./a"}, env: map[string]string{"GHOST_NG": "3"}, want: runOptions{users: 2, ghosts: 0, program: []string{"./a"}}},
		{name: "casper alias", args: []string{"-n", "1", "--", "./a"}, env: map[string]string{"CSP_NG": "2"}, want: runOptions{users: 1, ghosts: 2, program: []string{"./a"}}},
		{name: "all flags", args: []string{"-n", "4", "--hosts", "a:3,b:3", "--mpiexec-arg", "-v", "--mpiexec-arg", "-x", "--dry-run", "--", "./a", "-n", "9"},
			want: runOptions{users: 4, ghosts: 1, hosts: "a:3,b:3", mpiexecArgs: []string{"-v", "-x"}, dryRun: true, program: []string{"./a", "-n", "9"}}},
		{name: "missing n", args: []string{"--", "./a"}, err: "-n is required"},
		{name: "missing program", args: []string{"-n", "2"}, err: "no program given"},
		{name: "bad g", args: []string{"-n", "2", "-g", "x", "./a"}, err: `-g "x" is not valid`},
		{name: "negative g", args: []string{"-n", "2", "-g", "-1", "./a"}, err: `-g "-1" is not valid`},
		{name: "bad env", args: []string{"-n", "2", "./a"}, env: map[string]string{"GHOST_NG": "lots"}, err: `GHOST_NG="lots" is not valid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRunArgs(tt.args, env(tt.env), io.Discard)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMpiexecCommand(t *testing.T) {
	tests := []struct {
		name    string
		o       runOptions
		preload string
		want    string
		err     string
	}{
		{name: "one node", o: runOptions{users: 2, ghosts: 1, program: []string{"./a"}},
			want: "mpiexec -n 3 -genv LD_PRELOAD /l/libghost.so -genv GHOST_NG 1 ./a"},
		{name: "pass-through", o: runOptions{users: 2, ghosts: 0, program: []string{"./a"}},
			want: "mpiexec -n 2 -genv LD_PRELOAD /l/libghost.so -genv GHOST_NG 0 ./a"},
		{name: "fake nodes", o: runOptions{users: 4, ghosts: 1, hosts: "nodeA:3,nodeB:3", program: []string{"./a"}},
			want: "mpiexec -launcher fork -hosts nodeA:3,nodeB:3 -n 6 -genv LD_PRELOAD /l/libghost.so -genv GHOST_NG 1 ./a"},
		{name: "fake nodes partly used", o: runOptions{users: 3, ghosts: 1, hosts: "nodeA:3,nodeB:3", program: []string{"./a"}},
			want: "mpiexec -launcher fork -hosts nodeA:3,nodeB:2 -n 5 -genv LD_PRELOAD /l/libghost.so -genv GHOST_NG 1 ./a"},
		{name: "extra args and preload", o: runOptions{users: 1, ghosts: 1, mpiexecArgs: []string{"-v"}, program: []string{"./a", "b"}}, preload: "/x.so",
			want: "mpiexec -n 2 -genv LD_PRELOAD /l/libghost.so:/x.so -genv GHOST_NG 1 -v ./a b"},
		{name: "too few slots", o: runOptions{users: 5, ghosts: 1, hosts: "nodeA:3,nodeB:3", program: []string{"./a"}},
			err: "cannot hold 5 users plus 1 ghost(s) per host"},
		{name: "bad hosts", o: runOptions{users: 1, ghosts: 1, hosts: "nodeA", program: []string{"./a"}}, err: "expected host:slots"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mpiexecCommand(tt.o, "mpiexec", "/l/libghost.so", tt.preload)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("got  %s\nwant %s", s, tt.want)
			}
		})
	}
}

func TestFindLibrary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	lib := filepath.Join(dir, "lib")
	for _, d := range []string{bin, lib} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(bin, "ghost")
	if _, err := findLibrary(env(nil), exe); err == nil || !strings.Contains(err.Error(), "libghost.so not found") {
		t.Fatalf("err = %v", err)
	}
	inLib := filepath.Join(lib, "libghost.so")
	os.WriteFile(inLib, nil, 0o644)
	if got, _ := findLibrary(env(nil), exe); got != inLib {
		t.Errorf("../lib: got %q", got)
	}
	beside := filepath.Join(bin, "libghost.so")
	os.WriteFile(beside, nil, 0o644)
	if got, _ := findLibrary(env(nil), exe); got != beside {
		t.Errorf("beside: got %q", got)
	}
	if got, _ := findLibrary(env(map[string]string{"GHOST_LIB": inLib}), exe); got != inLib {
		t.Errorf("GHOST_LIB: got %q", got)
	}
	if _, err := findLibrary(env(map[string]string{"GHOST_LIB": "/nonexistent.so"}), exe); err == nil {
		t.Error("missing GHOST_LIB accepted")
	}
}

func TestFindMpiexec(t *testing.T) {
	only := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			for _, x := range names {
				if x == n {
					return "/usr/bin/" + n, nil
				}
			}
			return "", os.ErrNotExist
		}
	}
	tests := []struct {
		env  map[string]string
		path []string
		want string
	}{
		{nil, []string{"mpiexec", "mpiexec.hydra"}, "/usr/bin/mpiexec.hydra"},
		{nil, []string{"mpiexec", "mpiexec.mpich"}, "/usr/bin/mpiexec.mpich"},
		{nil, []string{"mpiexec"}, "/usr/bin/mpiexec"},
		{map[string]string{"GHOST_MPIEXEC": "/opt/mpiexec"}, []string{"mpiexec"}, "/opt/mpiexec"},
	}
	for _, tt := range tests {
		if got, _ := findMpiexec(env(tt.env), only(tt.path...)); got != tt.want {
			t.Errorf("findMpiexec = %q, want %q", got, tt.want)
		}
	}
	if _, err := findMpiexec(env(nil), only()); err == nil {
		t.Error("no mpiexec accepted")
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"mpiexec", "-n", "2", "a b", "it's", ""})
	want := `mpiexec -n 2 'a b' 'it'\''s' ''`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

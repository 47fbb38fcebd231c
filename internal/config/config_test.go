package config

import (
	"strings"
	"testing"
	"time"
)

func TestResolveNG(t *testing.T) {
	tests := []struct {
		ng, nodes int
		room      bool
		want      int
	}{
		{NGAuto, 1, true, 0},
		{NGAuto, 2, true, 1},
		{NGAuto, 1000, true, 1},
		{NGAuto, 2, false, 0}, // a node of one process keeps it as a user
		{0, 4, true, 0},
		{2, 1, true, 2},
		{1, 1, true, 1},
		{1, 2, false, 1}, // explicit counts are checked by the layout, not here
	}
	for _, tt := range tests {
		if got := ResolveNG(tt.ng, tt.nodes, tt.room); got != tt.want {
			t.Errorf("ResolveNG(%d, %d, %v) = %d, want %d", tt.ng, tt.nodes, tt.room, got, tt.want)
		}
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name     string
		env      []string
		want     Config
		problems []string // substrings, one per problem, in order
		errors   int
	}{
		{name: "defaults", want: Default()},
		{name: "ng", env: []string{"GHOST_NG=2"}, want: Config{NG: 2, Wait: WaitAdaptive, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOn, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelWarn}},
		{name: "node-local off", env: []string{"GHOST_NODE_LOCAL=off"}, want: func() Config { c := Default(); c.NodeLocalOff = true; return c }()},
		{name: "node-local bad", env: []string{"GHOST_NODE_LOCAL=maybe"}, want: Default(), problems: []string{`GHOST_NODE_LOCAL="maybe" is not valid`}, errors: 1},
		{name: "ucx wake off", env: []string{"GHOST_UCX_WAKE=no"}, want: func() Config { c := Default(); c.UCXWakeOff = true; return c }()},
		{name: "ucx wake bad", env: []string{"GHOST_UCX_WAKE=sometimes"}, want: Default(),
			problems: []string{`GHOST_UCX_WAKE="sometimes" is not valid: accepted values are on or off`}, errors: 1},
		{name: "ng auto", env: []string{"GHOST_NG= auto"}, want: Default()},
		{name: "ng zero", env: []string{"GHOST_NG=0"}, want: Config{NG: 0, Wait: WaitAdaptive, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOn, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelWarn}},
		{name: "casper alias", env: []string{"CSP_NG=3"}, want: Config{NG: 3, Wait: WaitAdaptive, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOn, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelWarn}},
		{name: "ghost name wins", env: []string{"CSP_NG=3", "GHOST_NG=2"}, want: Config{NG: 2, Wait: WaitAdaptive, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOn, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelWarn}},
		{name: "ng not integer", env: []string{"GHOST_NG=two"}, want: Default(),
			problems: []string{`GHOST_NG="two" is not valid: accepted values are auto, or an integer from 0 to 8`}, errors: 1},
		{name: "ng negative", env: []string{"GHOST_NG=-1"}, want: Default(),
			problems: []string{`GHOST_NG="-1" is not valid`}, errors: 1},
		{name: "ng above the table", env: []string{"GHOST_NG=9"}, want: Default(),
			problems: []string{`GHOST_NG="9" is not valid: accepted values are auto, or an integer from 0 to 8`}, errors: 1},
		{name: "async off", env: []string{"GHOST_ASYNC=off"}, want: Config{NG: NGAuto, Wait: WaitAdaptive, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOff, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelWarn}},
		{name: "async casper alias", env: []string{"CSP_ASYNC_CONFIG=OFF"}, want: Config{NG: NGAuto, Wait: WaitAdaptive, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOff, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelWarn}},
		{name: "async bad", env: []string{"GHOST_ASYNC=sometimes"}, want: Default(),
			problems: []string{`GHOST_ASYNC="sometimes" is not valid: accepted values are on, off or auto`}, errors: 1},
		{name: "auto with tuning", env: []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=250ms", "GHOST_CR_LOW=0.2", "GHOST_CR_HIGH=0.8"},
			want: func() Config {
				c := Default()
				c.Async, c.PredictInterval, c.CRLow, c.CRHigh = AsyncAuto, 250*time.Millisecond, 0.2, 0.8
				return c
			}()},
		{name: "gsync off", env: []string{"GHOST_GSYNC_INT=0"}, want: func() Config { c := Default(); c.GSyncInterval = 0; return c }()},
		{name: "gsync bad", env: []string{"GHOST_GSYNC_INT=often"}, want: Default(),
			problems: []string{`GHOST_GSYNC_INT="often" is not valid: accepted values are a duration`}, errors: 1},
		{name: "interval bad", env: []string{"GHOST_PREDICT_INT=1"}, want: Default(),
			problems: []string{`GHOST_PREDICT_INT="1" is not valid: accepted values are a positive duration`}, errors: 1},
		{name: "interval negative", env: []string{"GHOST_PREDICT_INT=-1s"}, want: Default(), problems: []string{"GHOST_PREDICT_INT"}, errors: 1},
		{name: "ratio out of range", env: []string{"GHOST_CR_HIGH=1.5"}, want: Default(),
			problems: []string{`GHOST_CR_HIGH="1.5" is not valid: accepted values are a number from 0 to 1`}, errors: 1},
		{name: "thresholds crossed", env: []string{"GHOST_CR_LOW=0.7"},
			want:     func() Config { c := Default(); c.CRLow = 0.7; return c }(),
			problems: []string{"GHOST_CR_LOW=0.7 must be lower than GHOST_CR_HIGH=0.6"}, errors: 1},
		{name: "user yield off", env: []string{"GHOST_USER_YIELD=0"}, want: Config{NG: NGAuto, Wait: WaitAdaptive, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOn, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: 0, Verbose: LevelWarn}},
		{name: "user yield bad", env: []string{"GHOST_USER_YIELD=often"}, want: Default(),
			problems: []string{`GHOST_USER_YIELD="often" is not valid: accepted values are a non-negative integer`}, errors: 1},
		{name: "load byte", env: []string{"GHOST_LOAD=byte"}, want: Config{NG: NGAuto, Wait: WaitAdaptive, Load: LoadByte, HWBypass: HWBypassAuto, Async: AsyncOn, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelWarn}},
		{name: "load bad", env: []string{"GHOST_LOAD=bytes"}, want: Default(),
			problems: []string{`GHOST_LOAD="bytes" is not valid: accepted values are static, random, op or byte`}, errors: 1},
		{name: "hw bypass off", env: []string{"GHOST_HW_BYPASS=OFF"}, want: func() Config { c := Default(); c.HWBypass = HWBypassOff; return c }()},
		{name: "hw bypass bad", env: []string{"GHOST_HW_BYPASS=yes"}, want: Default(),
			problems: []string{`GHOST_HW_BYPASS="yes" is not valid: accepted values are auto, on or off (default auto)`}, errors: 1},
		{name: "bad alias names alias", env: []string{"CSP_NG=x"}, want: Default(),
			problems: []string{`CSP_NG="x" is not valid`}, errors: 1},
		{name: "wait modes", env: []string{"GHOST_WAIT=Yield"}, want: Config{NG: NGAuto, Wait: WaitYield, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOn, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelWarn}},
		{name: "wait bad", env: []string{"GHOST_WAIT=sleep"}, want: Default(),
			problems: []string{`GHOST_WAIT="sleep" is not valid: accepted values are spin, yield or adaptive`}, errors: 1},
		{name: "verbose number", env: []string{"GHOST_VERBOSE=3"}, want: Config{NG: NGAuto, Wait: WaitAdaptive, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOn, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelDebug}},
		{name: "verbose word", env: []string{"GHOST_VERBOSE=info"}, want: Config{NG: NGAuto, Wait: WaitAdaptive, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOn, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelInfo}},
		{name: "profile", env: []string{"GHOST_PROFILE=on"}, want: Config{NG: NGAuto, Wait: WaitAdaptive, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOn, PredictInterval: time.Second, CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelWarn, Profile: true}},
		{name: "profile bad", env: []string{"GHOST_PROFILE=maybe"}, want: Default(), problems: []string{"GHOST_PROFILE"}, errors: 1},
		{name: "unknown with suggestion", env: []string{"GHOST_NGG=1"}, want: Default(),
			problems: []string{"GHOST_NGG is not a Ghost variable and is ignored; did you mean GHOST_NG?"}},
		{name: "unknown far from all", env: []string{"GHOST_COMPLETELY_DIFFERENT=1"}, want: Default(),
			problems: []string{"GHOST_COMPLETELY_DIFFERENT is not a Ghost variable and is ignored"}},
		{name: "launcher vars are known", env: []string{"GHOST_LIB=/x", "GHOST_MPIEXEC=/y"}, want: Default()},
		{name: "other prefixes ignored", env: []string{"OMP_NUM_THREADS=2", "CSP_OTHER=1"}, want: Default()},
		{name: "two problems sorted", env: []string{"GHOST_WAIT=x", "GHOST_NG=y"}, want: Default(),
			problems: []string{"GHOST_NG=", "GHOST_WAIT="}, errors: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := Load(tt.env)
			if got != tt.want {
				t.Errorf("config = %+v, want %+v", got, tt.want)
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems = %v, want %d", problems, len(tt.problems))
			}
			errors := 0
			for i, p := range problems {
				if !strings.Contains(p.Msg, tt.problems[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, p.Msg, tt.problems[i])
				}
				if p.Severity == Error {
					errors++
				}
			}
			if errors != tt.errors {
				t.Errorf("errors = %d, want %d", errors, tt.errors)
			}
		})
	}
}

func TestNearest(t *testing.T) {
	known := []string{"GHOST_NG", "GHOST_WAIT", "GHOST_VERBOSE", "GHOST_PROFILE"}
	tests := []struct{ in, want string }{
		{"GHOST_NG", "GHOST_NG"},
		{"GHOST_N", "GHOST_NG"},
		{"GHOST_WIAT", "GHOST_WAIT"},
		{"GHOST_VERBOS", "GHOST_VERBOSE"},
		{"GHOST_PROFIEL", "GHOST_PROFILE"},
		{"GHOST_XYZXYZXYZ", ""},
	}
	for _, tt := range tests {
		if got := Nearest(tt.in, known); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"GHOST_NG", "GHOST_NG", 0},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

package main

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParsePhases(t *testing.T) {
	const good = "ranks 2\nphase 0 COMP 0.1075 OFF\n\nphase 1 COMM 0.0099 ON\ntotal 0.1174 correct\n"
	tests := []struct {
		name    string
		in      string
		want    []Sample
		states  string
		wrong   int64
		wantErr string
	}{
		{
			name: "phases and total, blank lines ignored",
			in:   good,
			want: []Sample{
				{Metric: "0 COMP", Unit: "s", Rank: -1, Value: 0.1075},
				{Metric: "1 COMM", Unit: "s", Rank: -1, Value: 0.0099},
				{Metric: "total", Unit: "s", Rank: -1, Value: 0.1174},
			},
			states: "OFF ON",
		},
		{
			name:   "a wrong check keeps the samples",
			in:     "ranks 2\nphase 0 COMM 1 OFF\ntotal 1 WRONG\n",
			want:   []Sample{{Metric: "0 COMM", Unit: "s", Rank: -1, Value: 1}, {Metric: "total", Unit: "s", Rank: -1, Value: 1}},
			states: "OFF",
			wrong:  1,
		},
		{name: "no ranks line", in: "phase 0 COMP 1 ON\ntotal 1 correct\n", wantErr: "no ranks line"},
		{name: "no phases", in: "ranks 2\ntotal 1 correct\n", wantErr: "no phases"},
		{name: "no total", in: "ranks 2\nphase 0 COMP 1 ON\n", wantErr: "no total line"},
		{name: "phase out of order", in: "ranks 2\nphase 1 COMP 1 ON\n", wantErr: "line 2: phase 1 where phase 0 was due"},
		{name: "unknown kind", in: "ranks 2\nphase 0 IO 1 ON\n", wantErr: `kind "IO"`},
		{name: "unknown state", in: "ranks 2\nphase 0 COMP 1 on\n", wantErr: `state "on"`},
		{name: "bad time", in: "ranks 2\nphase 0 COMP -1 ON\n", wantErr: "negative time"},
		{name: "bad check", in: "ranks 2\nphase 0 COMP 1 ON\ntotal 1 maybe\n", wantErr: `check "maybe"`},
		{name: "stray text", in: "ranks 2\nhello\n", wantErr: "line 2: unknown line"},
		{name: "a phase too short", in: "ranks 2\nphase 0 COMP 1\n", wantErr: "unknown line"},
		{name: "output after the total", in: good + "phase 2 COMP 1 ON\n", wantErr: "output after the total"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePhases(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Samples, tt.want) {
				t.Errorf("samples %+v, want %+v", got.Samples, tt.want)
			}
			if got.Meta["states"] != tt.states || got.worldSize() != 2 {
				t.Errorf("meta %v, want states %q and world size 2", got.Meta, tt.states)
			}
			if w, checked := got.wrongValues(); w != tt.wrong || !checked {
				t.Errorf("wrongValues() = %d, %v; want %d, true", w, checked, tt.wrong)
			}
		})
	}
}

func TestStateCell(t *testing.T) {
	tests := []struct {
		states []string
		want   string
	}{
		{nil, "—"},
		{[]string{"ON", "ON", "ON"}, "ON"},
		{[]string{"OFF"}, "OFF"},
		{[]string{"ON", "OFF", "ON"}, "ON 2/3"},
		{[]string{"OFF", "OFF", "ON", "OFF", "ON"}, "OFF 3/5"},
		{[]string{"ON", "OFF"}, "ON/OFF"},
	}
	for _, tt := range tests {
		if got := stateCell(tt.states); got != tt.want {
			t.Errorf("stateCell(%v) = %q, want %q", tt.states, got, tt.want)
		}
	}
}

func TestPhaseStates(t *testing.T) {
	runs := []Run{
		{Config: "U", Meta: map[string]any{"states": "ON OFF"}},
		{Config: "U", Round: 1, Meta: map[string]any{"states": "ON ON"}},
		{Config: "U", Round: 2, Error: "timed out", Meta: map[string]any{"states": "OFF OFF"}},
		{Config: "P", Meta: map[string]any{}},
	}
	want := map[string][][]string{"U": {{"ON", "ON"}, {"OFF", "ON"}}}
	if got := phaseStates(runs); !reflect.DeepEqual(got, want) {
		t.Errorf("phaseStates = %v, want %v", got, want)
	}
}

func TestWriteMultiphase(t *testing.T) {
	samples := []Sample{
		{Config: "on", Metric: "0 COMP", Unit: "s", Value: 0.1},
		{Config: "on", Metric: "1 COMM", Unit: "s", Value: 0.4},
		{Config: "on", Metric: "total", Unit: "s", Value: 0.5},
		{Config: "on", Round: 1, Metric: "0 COMP", Unit: "s", Value: 0.3},
		{Config: "on", Round: 1, Metric: "1 COMM", Unit: "s", Value: 0.2},
		{Config: "on", Round: 1, Metric: "total", Unit: "s", Value: 0.6},
	}
	s := SuiteResult{
		Name:    "multiphase",
		Configs: []ConfigInfo{{Name: "on"}, {Name: "U"}},
		Runs: []Run{
			{Config: "on", Meta: map[string]any{"states": "ON ON"}},
			{Config: "on", Round: 1, Meta: map[string]any{"states": "ON OFF"}},
			{Config: "U", Error: "timed out"},
		},
		Stats: statsOf(samples),
	}
	var b strings.Builder
	writeMultiphase(&b, s)
	for _, want := range []string{
		"| config | 0 COMP | 1 COMM |\n|---|---|---|\n| on | ON | ON/OFF |\n| U | — | — |\n",
		"| config | 0 COMP | 1 COMM | total | fastest total | runs |\n",
		"| on | 200.0 | 300.0 | 550.0 | 500.0 | 2 |\n",
		"| U | — | — | — | — | 0 |\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("section lacks %q:\n%s", want, b.String())
		}
	}
}

// The configuration's arguments go before the suite's: multiphase needs
// its mode first.
func TestRunOnceArgumentOrder(t *testing.T) {
	c := Config{Name: "U", ProgArgs: []string{"user"},
		Command: func(l Launch, prog []string) []string { return append([]string{"true"}, prog...) }}
	parse := func(io.Reader) (programOutput, error) {
		return programOutput{Meta: map[string]any{"world_size": float64(2)}, Samples: []Sample{{Metric: "total", Unit: "s"}}}, nil
	}
	run, samples := runOnce(c, Launch{Users: 2}, []string{"exe", "40", "500"}, nil, 3, 10*time.Second, parse)
	if run.Error != "" {
		t.Fatal(run.Error)
	}
	if want := []string{"true", "exe", "user", "40", "500"}; !reflect.DeepEqual(run.Command, want) {
		t.Errorf("command %v, want %v", run.Command, want)
	}
	if len(samples) != 1 || samples[0].Config != "U" || samples[0].Round != 3 {
		t.Errorf("samples %+v, want one of U in round 3", samples)
	}
}

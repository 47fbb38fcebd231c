package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseOutput(t *testing.T) {
	const meta = `{"type":"meta","program":"intercept","world_size":2,"mpi":"MPICH Version:4.0.2"}`
	const sample = `{"type":"sample","metric":"MPI_Comm_rank","unit":"ns/call","rank":1,"rep":3,"iters":1000,"value":2.5}`
	tests := []struct {
		name    string
		in      string
		want    []Sample
		size    int
		wantErr string
	}{
		{
			name: "meta and a sample, blank lines ignored",
			in:   meta + "\n\n" + sample + "\n",
			want: []Sample{{Metric: "MPI_Comm_rank", Unit: "ns/call", Rank: 1, Rep: 3, Iters: 1000, Value: 2.5}},
			size: 2,
		},
		{name: "no meta", in: sample, wantErr: "no meta line"},
		{name: "no samples", in: meta, wantErr: "no samples"},
		{name: "stray text is an error", in: meta + "\nhello\n" + sample, wantErr: "line 2: not a JSON object"},
		{name: "unknown type", in: meta + "\n" + `{"type":"x"}`, wantErr: `unknown type "x"`},
		{name: "two metas", in: meta + "\n" + meta, wantErr: "second meta line"},
		{name: "sample without unit", in: meta + "\n" + `{"type":"sample","metric":"m","value":1}`, wantErr: "without metric or unit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOutput(strings.NewReader(tt.in))
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
			if got.worldSize() != tt.size {
				t.Errorf("worldSize() = %d, want %d", got.worldSize(), tt.size)
			}
		})
	}
}

func TestWorldSizeMissing(t *testing.T) {
	if got := (programOutput{Meta: map[string]any{}}).worldSize(); got != -1 {
		t.Errorf("worldSize() = %d, want -1", got)
	}
}

func TestWrongValues(t *testing.T) {
	tests := []struct {
		meta    map[string]any
		want    int64
		checked bool
	}{
		{map[string]any{"wrong_values": float64(0)}, 0, true},
		{map[string]any{"wrong_values": float64(7)}, 7, true},
		{map[string]any{}, 0, false},
		{map[string]any{"wrong_values": "many"}, 0, false},
	}
	for _, tt := range tests {
		got, checked := programOutput{Meta: tt.meta}.wrongValues()
		if got != tt.want || checked != tt.checked {
			t.Errorf("wrongValues(%v) = %d, %v; want %d, %v", tt.meta, got, checked, tt.want, tt.checked)
		}
	}
}

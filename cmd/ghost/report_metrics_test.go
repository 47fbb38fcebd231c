package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const nodeRecord = `# TYPE ghost_rma_operations_total counter
ghost_rma_operations_total{node="1",op="put",path="ghost"} 3
ghost_rma_operations_total{node="1",op="put",path="direct"} 1
ghost_rma_operations_total{node="1",op="cas",path="direct"} 6
# TYPE ghost_rma_bytes_total counter
ghost_rma_bytes_total{node="1",op="put",path="ghost"} 48
ghost_rma_bytes_total{node="1",op="put",path="direct"} 16
ghost_rma_bytes_total{node="1",op="cas",path="direct"} 24
# TYPE ghost_epochs_total counter
ghost_epochs_total{node="1",type="lock_all"} 2
# TYPE ghost_sync_calls_total counter
ghost_sync_calls_total{call="fence",node="1"} 4
ghost_sync_calls_total{call="flush",node="1"} 0
# TYPE ghost_sync_internal_operations_total counter
ghost_sync_internal_operations_total{call="fence",kind="p2p",node="1"} 6
ghost_sync_internal_operations_total{call="fence",kind="wake",node="1"} 2
ghost_sync_internal_operations_total{call="fence",kind="collective",node="1"} 4
# TYPE ghost_adaptation_transitions_total counter
ghost_adaptation_transitions_total{direction="on_to_off",node="1",point="implicit"} 1
ghost_adaptation_transitions_total{direction="off_to_on",node="1",point="implicit"} 0
# TYPE ghost_user_processes gauge
ghost_user_processes{node="1"} 1
# TYPE ghost_busy_ratio gauge
ghost_busy_ratio{ghost="0",node="1"} 0.5
`

func TestReportMetrics(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ghost_node1.prom"), []byte(nodeRecord), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a record"), 0o644)
	for _, args := range [][]string{{dir}, {filepath.Join(dir, "ghost_node1.prom")}} {
		var out bytes.Buffer
		if err := reportMetrics(args, &out); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		rows := map[string]bool{}
		for _, line := range strings.Split(out.String(), "\n") {
			rows[strings.Join(strings.Fields(line), " ")] = true
		}
		for _, want := range []string{"1 1 3 7 0 48 B 40 B 0 B 2 1 0 0.000 - 50%", "1 put 3 1 0 48 B 16 B 0 B", "1 cas 0 6 0 0 B 24 B 0 B",
			"1 fence 4 6 2 4 1.50 / 0.50 / 1.00", "1 implicit 1 0"} {
			if !rows[want] {
				t.Errorf("%v: no row %q in\n%s", args, want, out.String())
			}
		}
		if strings.Contains(out.String(), "flush") {
			t.Errorf("%v: a call never made has a row:\n%s", args, out.String())
		}
	}
}

func TestReportMetricsErrors(t *testing.T) {
	empty := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad.prom")
	os.WriteFile(bad, []byte("this is { not the format\n"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{empty}, "no .prom files"},
		{[]string{filepath.Join(empty, "missing.prom")}, "no such file"},
		{[]string{bad}, "bad.prom"},
	}
	for _, tc := range tests {
		err := reportMetrics(tc.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want it to say %q", tc.args, err, tc.want)
		}
	}
}

func TestIsMetricsReport(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl")
	os.WriteFile(trace, nil, 0o644)
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{dir}, true},
		{[]string{"a.prom", "b.prom"}, true},
		{[]string{dir, "a.prom"}, true},
		{[]string{trace}, false},
		{[]string{"--plot", "x.png", trace}, false},
		{[]string{dir, trace}, false},
		{nil, false},
	}
	for _, tc := range tests {
		if got := isMetricsReport(tc.args); got != tc.want {
			t.Errorf("isMetricsReport(%v) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

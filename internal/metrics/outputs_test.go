package metrics

import (
	"strings"
	"testing"

	"github.com/ghost-mpi/ghost/internal/config"
)

func TestOutputs(t *testing.T) {
	tests := []struct {
		addr, textfile string
		wanted         bool
		endpoint       string
	}{
		{"", "", true, config.DefaultMetricsAddr},
		{"0.0.0.0:9500", "", true, "0.0.0.0:9500"},
		{"off", "", false, ""},
		{"off", "/tmp", true, ""},
		{"127.0.0.1:0", "/tmp", true, "127.0.0.1:0"},
	}
	for _, tt := range tests {
		wanted, endpoint := Outputs(config.Config{MetricsAddr: tt.addr, MetricsTextfile: tt.textfile})
		if wanted != tt.wanted || endpoint != tt.endpoint {
			t.Errorf("Outputs(addr %q, textfile %q) = (%v, %q), want (%v, %q)",
				tt.addr, tt.textfile, wanted, endpoint, tt.wanted, tt.endpoint)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	if errs := ConfigErrors(config.Config{}); errs != nil {
		t.Errorf("no textfile: %q", errs)
	}
	if errs := ConfigErrors(config.Config{MetricsTextfile: t.TempDir()}); errs != nil {
		t.Errorf("a writable directory: %q", errs)
	}
	errs := ConfigErrors(config.Config{MetricsTextfile: "/nonexistent/ghost-metrics"})
	if len(errs) != 1 || !strings.Contains(errs[0], "/nonexistent/ghost-metrics") {
		t.Errorf("a missing directory: %q, want one error naming it", errs)
	}
}

package metrics

import (
	"strings"
	"testing"

	"github.com/ghost-mpi/ghost/internal/config"
)

// The metrics variables as config.Load reads them.
func TestConfigVariables(t *testing.T) {
	tests := []struct {
		env      string
		addr     string
		textfile string
		pprof    bool
		problem  string
	}{
		{env: "GHOST_METRICS_ADDR=127.0.0.1:9500", addr: "127.0.0.1:9500"},
		{env: "GHOST_METRICS_ADDR=[::1]:0", addr: "[::1]:0"},
		{env: "GHOST_METRICS_ADDR=:9464", addr: ":9464"},
		{env: "GHOST_METRICS_ADDR=OFF", addr: "off"},
		{env: "GHOST_METRICS_ADDR=9464", problem: `GHOST_METRICS_ADDR="9464" is not valid: accepted values are host:port`},
		{env: "GHOST_METRICS_ADDR=localhost:99999", problem: "GHOST_METRICS_ADDR"},
		{env: "GHOST_METRICS_ADDR=", problem: "GHOST_METRICS_ADDR"},
		{env: "GHOST_METRICS_TEXTFILE=/tmp/m", textfile: "/tmp/m"},
		{env: "GHOST_METRICS_TEXTFILE=", problem: "GHOST_METRICS_TEXTFILE"},
		{env: "GHOST_PPROF=1", pprof: true},
		{env: "GHOST_PPROF=maybe", problem: "GHOST_PPROF"},
	}
	for _, tc := range tests {
		cfg, problems := config.Load([]string{tc.env})
		if tc.problem != "" {
			if len(problems) != 1 || problems[0].Severity != config.Error || !strings.Contains(problems[0].Msg, tc.problem) {
				t.Errorf("%s: problems %v, want one error saying %q", tc.env, problems, tc.problem)
			}
			continue
		}
		if len(problems) != 0 {
			t.Errorf("%s: problems %v", tc.env, problems)
		}
		if cfg.MetricsAddr != tc.addr || cfg.MetricsTextfile != tc.textfile || cfg.Pprof != tc.pprof {
			t.Errorf("%s: addr %q textfile %q pprof %v", tc.env, cfg.MetricsAddr, cfg.MetricsTextfile, cfg.Pprof)
		}
	}
}

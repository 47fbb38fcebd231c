package metrics

import "github.com/ghost-mpi/ghost/internal/config"

// Outputs says what of a node's metrics cfg asks for: wanted, an endpoint
// or a textfile (else the counters stay in each process and nobody
// collects them), and the address the endpoint listens on ("" for none:
// GHOST_METRICS_ADDR=off, with only a textfile).
func Outputs(cfg config.Config) (wanted bool, endpoint string) {
	addr := cfg.MetricsAddr
	if addr == "" {
		addr = config.DefaultMetricsAddr
	}
	if addr == "off" {
		return cfg.MetricsTextfile != "", ""
	}
	return true, addr
}

// ConfigErrors checks what config.Load cannot: that the textfile
// directory exists and may be written.
func ConfigErrors(cfg config.Config) []string {
	if cfg.MetricsTextfile == "" {
		return nil
	}
	if err := CheckTextfileDir(cfg.MetricsTextfile); err != nil {
		return []string{err.Error()}
	}
	return nil
}

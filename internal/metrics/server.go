package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// PortTries is how many consecutive ports Listen tries: enough for the
// fake nodes of one host and a few unrelated listeners.
const PortTries = 32

// Request limits: a scrape is a GET with a few headers and no body.
const (
	maxHeaderBytes = 8 << 10
	maxBodyBytes   = 1 << 10
)

// Listen binds addr, or when its port is taken the next free one of up to
// tries ports. Port 0 lets the system pick. A port conflict is reported as
// an error only once every port was tried; the caller carries on without
// an exporter.
func Listen(addr string, tries int) (net.Listener, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("GHOST_METRICS_ADDR=%q: %v (want host:port, e.g. %s, or off)", addr, err, config.DefaultMetricsAddr)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("GHOST_METRICS_ADDR=%q: port %q is not a number from 0 to 65535", addr, portText)
	}
	if port == 0 || tries < 1 {
		tries = 1
	}
	var last error
	for i := 0; i < tries && port+i <= 65535; i++ {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port+i)))
		if err == nil {
			return ln, nil
		}
		last = err
		if !errors.Is(err, syscall.EADDRINUSE) {
			break
		}
	}
	return nil, fmt.Errorf("metrics exporter: no free port from %s on: %v", addr, last)
}

// Handler serves /metrics from g, a small landing page at /, and with
// withPprof the runtime profiles under /debug/pprof/. Everything else is
// 404; methods other than GET and HEAD get 405 and bodies over 1 KiB 413.
func Handler(g prometheus.Gatherer, withPprof bool) http.Handler {
	scrape := promhttp.HandlerFor(g, promhttp.HandlerOpts{
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 4,
		Timeout:             10 * time.Second,
	})
	profiles := http.NewServeMux()
	profiles.HandleFunc("/debug/pprof/", pprof.Index)
	profiles.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	profiles.HandleFunc("/debug/pprof/profile", pprof.Profile)
	profiles.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	profiles.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.ContentLength > maxBodyBytes {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		// Exact paths only: no redirects for unclean ones, nothing else
		// served.
		switch p := r.URL.Path; {
		case p == "/metrics":
			scrape.ServeHTTP(w, r)
		case p == "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, landingPage)
		case withPprof && strings.HasPrefix(p, "/debug/pprof/") && !strings.Contains(p, ".."):
			profiles.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

const landingPage = `<!DOCTYPE html>
<html><head><title>Ghost exporter</title></head>
<body><h1>Ghost exporter</h1><p><a href="/metrics">Metrics</a> (docs/metrics.md)</p></body></html>
`

// Exporter is a running metrics endpoint.
type Exporter struct {
	Addr string // the address bound
	srv  *http.Server
	done chan struct{}
}

// Serve starts serving h on ln in a goroutine. Timeouts and header limits
// make slow or oversized requests fail with 4xx (or a closed connection)
// without holding the ghost's resources.
func Serve(ln net.Listener, h http.Handler) *Exporter {
	e := &Exporter{
		Addr: ln.Addr().String(),
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 5 * time.Second,
			ReadTimeout:       10 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       60 * time.Second,
			MaxHeaderBytes:    maxHeaderBytes,
			// Malformed requests are the client's problem: no log line
			// on the job's stderr for them.
			ErrorLog: log.New(io.Discard, "", 0),
		},
		done: make(chan struct{}),
	}
	go func() {
		defer close(e.done)
		e.srv.Serve(ln)
	}()
	return e
}

// Close stops the endpoint, giving requests in flight a moment.
func (e *Exporter) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if e.srv.Shutdown(ctx) != nil {
		e.srv.Close()
	}
	<-e.done
}

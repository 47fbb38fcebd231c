package metrics

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestListenFallsBackToNextPort(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	ln, err := Listen(taken.Addr().String(), PortTries)
	if err != nil {
		// The next ports may be taken by someone else too; only a
		// conflict on every one of them is an error.
		t.Fatalf("Listen next to a taken port: %v", err)
	}
	defer ln.Close()
	got := ln.Addr().(*net.TCPAddr).Port
	if got <= port || got >= port+PortTries {
		t.Errorf("bound port %d, want one of the %d after %d", got, PortTries-1, port)
	}
}

func TestListenErrors(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	tests := []struct {
		addr  string
		tries int
		want  string
	}{
		{addr: "localhost", tries: 1, want: "want host:port"},
		{addr: "127.0.0.1:http", tries: 1, want: "not a number"},
		{addr: "127.0.0.1:70000", tries: 1, want: "not a number"},
		{addr: taken.Addr().String(), tries: 1, want: "no free port"},
	}
	for _, tc := range tests {
		ln, err := Listen(tc.addr, tc.tries)
		if err == nil {
			ln.Close()
			t.Errorf("Listen(%q) succeeded", tc.addr)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Listen(%q) = %v, want it to say %q", tc.addr, err, tc.want)
		}
	}
}

// serveTest runs an exporter over a fixed node on a free loopback port.
func serveTest(t *testing.T, pprof bool) *Exporter {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(0, fixedSource(twoUsersOneGhost()), BuildInfo{}))
	ln, err := Listen("127.0.0.1:0", 1)
	if err != nil {
		t.Fatal(err)
	}
	e := Serve(ln, Handler(reg, pprof))
	t.Cleanup(e.Close)
	return e
}

// raw sends a request as bytes and returns the response's status code.
func raw(t *testing.T, addr, request string) int {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	go io.WriteString(conn, request) // the server may answer before reading it all
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("no response to %.60q: %v", request, err)
	}
	var proto string
	var code int
	if _, err := fmt.Sscanf(line, "%s %d", &proto, &code); err != nil {
		t.Fatalf("bad status line %q", line)
	}
	return code
}

func TestHandlerRequests(t *testing.T) {
	e := serveTest(t, false)
	huge := strings.Repeat("x", 64<<10)
	tests := []struct {
		name    string
		request string
		want    int
	}{
		{"metrics", "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 200},
		{"landing page", "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 200},
		{"other path", "GET /admin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404},
		{"pprof off", "GET /debug/pprof/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404},
		{"post", "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 405},
		{"large body", "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\nConnection: close\r\n\r\n" + huge, 413},
		{"garbage", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not http\r\n\r\n", 400},
		{"bad request line", "GET\r\n\r\n", 400},
		{"bad header", "GET /metrics HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400},
		{"huge header", "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + huge + "\r\n\r\n", 431},
		{"huge url", "GET /metrics?" + huge + " HTTP/1.1\r\nHost: x\r\n\r\n", 431},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := raw(t, e.Addr, tc.request); got != tc.want {
				t.Errorf("status %d, want %d", got, tc.want)
			}
		})
	}
	// Still serving after all that.
	if got := raw(t, e.Addr, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); got != 200 {
		t.Errorf("after the bad requests: status %d", got)
	}
}

func TestPprofOnlyWhenAsked(t *testing.T) {
	e := serveTest(t, true)
	resp, err := http.Get("http://" + e.Addr + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("/debug/pprof/ with pprof on: %d", resp.StatusCode)
	}
}

func TestMetricsBody(t *testing.T) {
	e := serveTest(t, false)
	resp, err := http.Get("http://" + e.Addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	recs, err := ParseTextfile(resp.Body, "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Ops["put"] != [NPaths]float64{5, 1} {
		t.Errorf("records = %+v", recs)
	}
}

package test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/internal/metrics"
)

// What programs/metrics_ops.c issues per user rank, and so per node of
// the 2-node layout below (one user each): operations through the ghosts,
// then straight to the targets, and the bytes of one operation.
var (
	metricsOpsGhost  = map[string]int{"put": 3, "get": 4, "acc": 5, "get_acc": 6, "fop": 7, "cas": 8}
	metricsOpsDirect = map[string]int{"put": 1, "get": 2, "acc": 3, "get_acc": 4, "fop": 5, "cas": 6}
	metricsOpBytes   = map[string]int{"put": 16, "get": 16, "acc": 8, "get_acc": 8, "fop": 8, "cas": 4}
)

// metricsJob is 2 fake nodes, each with 1 ghost and 1 user.
func metricsJob(t *testing.T, env []string, args ...string) job {
	return metricsJobFor(t, mpich, env, args...)
}

// metricsJobFor is metricsJob with the program built for the MPI of f.
func metricsJobFor(t *testing.T, f mpiFlavour, env []string, args ...string) job {
	return job{users: 2, ghosts: 1, hosts: "a:2,b:2", env: append([]string{"GHOST_VERBOSE=info"}, env...),
		args: append([]string{programFor(t, f, "programs", "metrics_ops.c")}, args...), timeout: 2 * time.Minute}
}

// wantOps returns the exact value every (op, path) series of a node must
// have, for operation counts (bytes false) or bytes.
func wantOps(bytes bool) map[[2]string]float64 {
	want := map[[2]string]float64{}
	for _, op := range metrics.Ops {
		unit := 1
		if bytes {
			unit = metricsOpBytes[op]
		}
		want[[2]string{op, "ghost"}] = float64(metricsOpsGhost[op] * unit)
		want[[2]string{op, "direct"}] = float64(metricsOpsDirect[op] * unit)
		want[[2]string{op, "local"}] = 0 // the job's windows span both nodes
	}
	return want
}

// freePort returns a loopback port nobody listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// runningJob is a `ghost run` in the background whose stderr is watched
// for the exporters' addresses.
type runningJob struct {
	cmd    *exec.Cmd
	addrs  chan string // "node=address", as the ghosts log them
	mu     sync.Mutex
	stderr strings.Builder
	stdout strings.Builder
	done   chan error
}

var metricsLine = regexp.MustCompile(`metrics of node (\d+) at http://([^/\s]+)/metrics`)

func startGhostRun(t *testing.T, j job) *runningJob {
	t.Helper()
	args := []string{"run", "-n", strconv.Itoa(j.users), "-g", strconv.Itoa(j.ghosts), "--hosts", j.hosts, "--"}
	ctx, cancel := context.WithTimeout(context.Background(), j.timeout)
	cmd := exec.CommandContext(ctx, filepath.Join(buildDir, "ghost"), append(args, j.args...)...)
	cmd.Env = append(os.Environ(), j.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	r := &runningJob{cmd: cmd, addrs: make(chan string, 16), done: make(chan error, 1)}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = writerFunc(func(p []byte) { r.mu.Lock(); r.stdout.Write(p); r.mu.Unlock() })
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			line := sc.Text()
			r.mu.Lock()
			r.stderr.WriteString(line + "\n")
			r.mu.Unlock()
			if m := metricsLine.FindStringSubmatch(line); m != nil {
				r.addrs <- m[1] + "=" + m[2]
			}
		}
	}()
	go func() {
		<-scanned
		r.done <- cmd.Wait()
		cancel()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	return r
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

func (r *runningJob) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return "--- stdout\n" + r.stdout.String() + "--- stderr\n" + r.stderr.String()
}

// exporters waits for n exporters to log their addresses: node -> address.
func (r *runningJob) exporters(t *testing.T, n int) map[string]string {
	t.Helper()
	got := map[string]string{}
	deadline := time.After(90 * time.Second)
	for len(got) < n {
		select {
		case a := <-r.addrs:
			node, addr, _ := strings.Cut(a, "=")
			got[node] = addr
		case err := <-r.done:
			t.Fatalf("job ended (%v) before %d exporters started\n%s", err, n, r.output())
		case <-deadline:
			t.Fatalf("no %d exporter addresses logged after 90 s\n%s", n, r.output())
		}
	}
	return got
}

// wait waits for the job and requires success.
func (r *runningJob) wait(t *testing.T) {
	t.Helper()
	if err := <-r.done; err != nil {
		t.Fatalf("job failed: %v\n%s", err, r.output())
	}
	if out := r.output(); strings.Count(out, ": done") != 2 {
		t.Fatalf("not every rank finished\n%s", out)
	}
}

// startPrometheus runs the Debian package's prometheus on loopback with a
// temporary storage, scraping targets every second, and returns its API
// base URL. It is killed when the test ends.
func startPrometheus(t *testing.T, targets []string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatalf("prometheus not found: install the Debian package prometheus (make deps, .ci/run): %v", err)
	}
	dir := t.TempDir()
	quoted := make([]string, len(targets))
	for i, a := range targets {
		quoted[i] = strconv.Quote(a)
	}
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ghost
    static_configs:
      - targets: [%s]
`, strings.Join(quoted, ", "))
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+listen, "--log.level=warn")
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", log.String())
		}
	})
	return "http://" + listen
}

// promSample is one series of an instant query.
type promSample struct {
	labels map[string]string
	value  float64
}

func promQuery(base, query string) ([]promSample, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %s: %s", query, body.Error)
	}
	var out []promSample
	for _, r := range body.Data.Result {
		text, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("query %s: value %v", query, r.Value[1])
		}
		out = append(out, promSample{labels: r.Metric, value: v})
	}
	return out, nil
}

// checkSeries compares per-node (op, path) series with want on every node.
func checkSeries(samples []promSample, nodes []string, want map[[2]string]float64) []string {
	got := map[string]float64{}
	for _, s := range samples {
		got[s.labels["node"]+"/"+s.labels["op"]+"/"+s.labels["path"]] = s.value
	}
	var bad []string
	for _, node := range nodes {
		for k, v := range want {
			key := node + "/" + k[0] + "/" + k[1]
			if g, ok := got[key]; !ok || g != v {
				bad = append(bad, fmt.Sprintf("node %s op %s path %s: got %v (present %v), want %v", node, k[0], k[1], g, ok, v))
			}
		}
	}
	if len(samples) != len(nodes)*len(want) {
		bad = append(bad, fmt.Sprintf("%d series, want %d", len(samples), len(nodes)*len(want)))
	}
	return bad
}

// TestMetricsPrometheus runs an RMA job on 2 fake nodes, has a real
// Prometheus scrape both nodes' exporters, and checks through its HTTP API
// that the operation and byte counters are exactly what the job issued,
// per node, op and path: under MPICH, and under Open MPI with the same
// program built by mpicc.openmpi (ghost run starts it with
// libghost-openmpi.so, on fake nodes through mpirun.openmpi).
func TestMetricsPrometheus(t *testing.T) {
	needMPI(t)
	for _, ompi := range []bool{false, true} {
		name := map[bool]string{false: "mpich", true: "openmpi"}[ompi]
		t.Run(name, func(t *testing.T) { metricsThroughPrometheus(t, mpiOf(ompi)) })
	}
}

func metricsThroughPrometheus(t *testing.T, f mpiFlavour) {
	hold := filepath.Join(t.TempDir(), "release")
	port := freePort(t)
	r := startGhostRun(t, metricsJobFor(t, f, []string{fmt.Sprintf("GHOST_METRICS_ADDR=127.0.0.1:%d", port)}, hold))
	addrs := r.exporters(t, 2)
	var targets, nodes []string
	for node, a := range addrs {
		targets, nodes = append(targets, a), append(nodes, node)
	}
	if addrs["0"] == addrs["1"] {
		t.Fatalf("both nodes report %s", addrs["0"])
	}
	prom := startPrometheus(t, targets)

	checks := []struct {
		query string
		want  map[[2]string]float64
	}{
		{"ghost_rma_operations_total", wantOps(false)},
		{"ghost_rma_bytes_total", wantOps(true)},
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, c := range checks {
		for {
			samples, err := promQuery(prom, c.query)
			var bad []string
			if err != nil {
				bad = []string{err.Error()}
			} else {
				bad = checkSeries(samples, nodes, c.want)
			}
			if len(bad) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s through Prometheus:\n%s\n%s", c.query, strings.Join(bad, "\n"), r.output())
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	up, err := promQuery(prom, "up")
	if err != nil || len(up) != 2 || up[0].value != 1 || up[1].value != 1 {
		t.Errorf("up = %+v, %v: both exporters should be scraped", up, err)
	}
	// Each node's exporter says which MPI it serves: the job ran under the
	// MPI it was built for.
	library := map[bool]string{false: "MPICH", true: "Open MPI"}[f == openMPI]
	info, err := promQuery(prom, "ghost_build_info")
	if err != nil || len(info) != 2 {
		t.Errorf("ghost_build_info = %+v, %v: want one series per node", info, err)
	}
	for _, s := range info {
		if !strings.Contains(s.labels["mpi_version"], library) && !strings.Contains(s.labels["abi"], library) {
			t.Errorf("ghost_build_info %v names no %s", s.labels, library)
		}
	}
	os.WriteFile(hold, nil, 0o644)
	r.wait(t)
}

// TestMetricsTextfile checks the textfile records against the same counts,
// with the job finalizing right after its last operation.
func TestMetricsTextfile(t *testing.T) {
	needMPI(t)
	dir := t.TempDir()
	res := ghostRun(t, metricsJob(t, []string{"GHOST_METRICS_TEXTFILE=" + dir,
		fmt.Sprintf("GHOST_METRICS_ADDR=127.0.0.1:%d", freePort(t))}))
	if res.code != 0 || strings.Count(res.stdout, ": done") != 2 {
		t.Fatalf("job failed\n%s", res)
	}
	checkNodeTextfiles(t, dir, res)
}

// checkNodeTextfiles checks the records metricsJob's two nodes left in dir.
func checkNodeTextfiles(t *testing.T, dir string, res result) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 2 {
		t.Fatalf("textfile directory holds %v, want ghost_node0.prom and ghost_node1.prom only\n%s", files, res)
	}
	for node := 0; node < 2; node++ {
		path := filepath.Join(dir, metrics.TextfileName(node))
		recs, err := metrics.ReadTextfiles([]string{path})
		if err != nil {
			t.Fatalf("%v\n%s", err, res)
		}
		if len(recs) != 1 || recs[0].Node != strconv.Itoa(node) {
			t.Fatalf("%s: records %+v", path, recs)
		}
		rec := recs[0]
		for k, v := range wantOps(false) {
			if got := rec.Ops[k[0]][pathIndex(k[1])]; got != v {
				t.Errorf("%s: %s %s operations = %v, want %v", path, k[0], k[1], got, v)
			}
		}
		for k, v := range wantOps(true) {
			if got := rec.Bytes[k[0]][pathIndex(k[1])]; got != v {
				t.Errorf("%s: %s %s bytes = %v, want %v", path, k[0], k[1], got, v)
			}
		}
		// Two lock_all epochs, one switch off by MPI_Win_set_info.
		if rec.Syncs["lock_all"] != 2 || rec.Transitions["on_to_off"] != 1 || rec.Transitions["off_to_on"] != 0 || rec.Users != 1 {
			t.Errorf("%s: epochs %v, transitions %v, users %v", path, rec.Syncs, rec.Transitions, rec.Users)
		}
	}
}

// TestMetricsThreadMultiple: under MPI_THREAD_MULTIPLE, 12 threads per
// rank (more than the counter slots a process has, so some share the
// overflow slot) accumulate concurrently; every operation must be counted
// exactly once.
func TestMetricsThreadMultiple(t *testing.T) {
	needMPI(t)
	dir := t.TempDir()
	res := ghostRun(t, job{users: 2, ghosts: 1, hosts: "a:2,b:2", timeout: 2 * time.Minute,
		env:  []string{"GHOST_METRICS_TEXTFILE=" + dir, fmt.Sprintf("GHOST_METRICS_ADDR=127.0.0.1:%d", freePort(t))},
		args: []string{program(t, "metrics_threads.c")}})
	if res.code != 0 || strings.Count(res.stdout, ": done") != 2 {
		t.Fatalf("job failed\n%s", res)
	}
	for node := 0; node < 2; node++ {
		recs, err := metrics.ReadTextfiles([]string{filepath.Join(dir, metrics.TextfileName(node))})
		if err != nil {
			t.Fatalf("%v\n%s", err, res)
		}
		const want = 12 * 1000 // THREADS * OPS of the one user of the node
		if got := recs[0].Ops["acc"][pathIndex("ghost")]; got != want {
			t.Errorf("node %d: %v accumulates through the ghost, want %d", node, got, want)
		}
		if got := recs[0].Bytes["acc"][pathIndex("ghost")]; got != 8*want {
			t.Errorf("node %d: %v accumulated bytes, want %d", node, got, 8*want)
		}
	}
}

func pathIndex(path string) int {
	for i, p := range metrics.Paths {
		if p == path {
			return i
		}
	}
	panic(path)
}

// TestMetricsSecurity: the configured port is taken (the job goes on, on
// the next ports), and malformed or oversized requests to a live exporter
// get 4xx while the ghost keeps serving and the job succeeds.
func TestMetricsSecurity(t *testing.T) {
	needMPI(t)
	squatter, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer squatter.Close()
	taken := squatter.Addr().(*net.TCPAddr).Port
	hold := filepath.Join(t.TempDir(), "release")
	r := startGhostRun(t, metricsJob(t, []string{fmt.Sprintf("GHOST_METRICS_ADDR=127.0.0.1:%d", taken)}, hold))
	addrs := r.exporters(t, 2)
	huge := strings.Repeat("A", 1<<20)
	requests := []struct {
		name, request string
	}{
		{"binary garbage", "\x00\x01\x02\xff\xfe\r\n\r\n"},
		{"truncated request line", "GET\r\n\r\n"},
		{"header without colon", "GET /metrics HTTP/1.1\r\nHost: x\r\nbroken\r\n\r\n"},
		{"oversized header", "GET /metrics HTTP/1.1\r\nHost: x\r\nX-A: " + huge + "\r\n\r\n"},
		{"oversized URL", "GET /metrics?" + huge + " HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"oversized body", "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n" + huge},
		{"POST", "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"},
		{"unknown path", "GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"pprof off", "GET /debug/pprof/ HTTP/1.1\r\nHost: x\r\n\r\n"},
	}
	for node, addr := range addrs {
		if strings.HasSuffix(addr, ":"+strconv.Itoa(taken)) {
			t.Errorf("node %s bound the taken port %d", node, taken)
		}
		for _, rq := range requests {
			code, err := rawStatus(addr, rq.request)
			if err != nil {
				t.Errorf("node %s, %s: %v", node, rq.name, err)
			} else if code < 400 || code > 499 {
				t.Errorf("node %s, %s: status %d, want 4xx", node, rq.name, code)
			}
		}
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatalf("node %s: exporter gone after the bad requests: %v\n%s", node, err, r.output())
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("node %s: /metrics %d after the bad requests", node, resp.StatusCode)
		}
	}
	os.WriteFile(hold, nil, 0o644)
	r.wait(t)
}

// rawStatus sends request bytes as they are and reads the status code.
func rawStatus(addr, request string) (int, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(15 * time.Second))
	go io.WriteString(conn, request) // the server may answer before reading it all
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("no response: %v", err)
	}
	var proto string
	var code int
	if _, err := fmt.Sscanf(line, "%s %d", &proto, &code); err != nil {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	return code, nil
}

// TestMetricsWithoutGhosts: a job on one node runs no ghost by default
// (GHOST_NG=auto), and its node still gets metrics: the first user serves
// them and writes the textfile, and every operation of its node-local
// windows is counted on the local path.
func TestMetricsWithoutGhosts(t *testing.T) {
	needMPI(t)
	dir := t.TempDir()
	res := ghostRun(t, job{users: 2, ghosts: 0, env: []string{"GHOST_VERBOSE=info", "GHOST_METRICS_TEXTFILE=" + dir,
		fmt.Sprintf("GHOST_METRICS_ADDR=127.0.0.1:%d", freePort(t))},
		args: []string{program(t, "metrics_ops.c")}, timeout: 2 * time.Minute})
	if res.code != 0 || strings.Count(res.stdout, ": done") != 2 {
		t.Fatalf("job failed\n%s", res)
	}
	if len(ghostLines(res.stderr, "metrics of node 0 at http://")) != 1 {
		t.Errorf("no exporter announced\n%s", res)
	}
	recs, err := metrics.ReadTextfiles([]string{filepath.Join(dir, metrics.TextfileName(0))})
	if err != nil || len(recs) != 1 {
		t.Fatalf("textfile: %v, %d records\n%s", err, len(recs), res)
	}
	rec := recs[0]
	local := pathIndex("local")
	for _, op := range metrics.Ops {
		// Both users' operations, whichever phase of the program.
		want := float64(2 * (metricsOpsGhost[op] + metricsOpsDirect[op]))
		if got := rec.Ops[op][local]; got != want {
			t.Errorf("%s local operations = %v, want %v", op, got, want)
		}
		if got := rec.Bytes[op][local]; got != want*float64(metricsOpBytes[op]) {
			t.Errorf("%s local bytes = %v, want %v", op, got, want*float64(metricsOpBytes[op]))
		}
		if rec.Ops[op][pathIndex("ghost")]+rec.Ops[op][pathIndex("direct")] != 0 {
			t.Errorf("%s: operations on another path: %v", op, rec.Ops[op])
		}
	}
	if rec.Users != 2 || rec.Syncs["lock_all"] != 4 {
		t.Errorf("users %v, epochs %v", rec.Users, rec.Syncs)
	}
}

package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/profile"
)

// The pages whose quoted output is checked, relative to this package.
var exampleDocs = []string{"../docs/reference.md", "../docs/guide.md"}

// quotedOutput matches a line that a page quotes as Ghost's own message:
// the library's ("ghost: ...") and the launcher's ("ghost run: ...").
var quotedOutput = regexp.MustCompile(`^ghost( run)?: `)

// exampleMasks cover what differs from run to run, on both sides of the
// comparison: measured call counts and times, and the port an exporter
// found free.
var exampleMasks = []*regexp.Regexp{
	regexp.MustCompile(`\d+ MPI calls`),
	regexp.MustCompile(`\d+\.\d+ s inside MPI`),
	regexp.MustCompile(`127\.0\.0\.1:\d+/metrics`),
}

func maskExample(line string) string {
	for _, m := range exampleMasks {
		line = m.ReplaceAllStringFunc(line, func(s string) string {
			return regexp.MustCompile(`\d+`).ReplaceAllString(s, "N")
		})
	}
	return line
}

// fencedLines returns the lines inside the page's ``` blocks, trimmed, by
// their line number.
func fencedLines(t *testing.T, path string) ([]string, []int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var numbers []int
	in := false
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "```") {
			in = !in
			continue
		}
		if in {
			lines = append(lines, l)
			numbers = append(numbers, i+1)
		}
	}
	return lines, numbers
}

// writeThresholds writes a thresholds file called t.json, as the reference
// names it, in a directory of its own, with one deployment (2 users, 1
// ghost) and the given pair.
func writeThresholds(t *testing.T, low, high string) (dir string) {
	t.Helper()
	dir = t.TempDir()
	text := `{"format":"ghost-thresholds","version":1,"created":"2025-01-02T03:04:05Z",
 "machine":{"hostname":"box","cores":2,"mpi":"","hosts":""},
 "sweep":{"quick":true,"tolerance":0.05,"probe_seconds":0.1,"steps":1},
 "boundaries":[{"n":2,"g":1,"pattern":{"op":"put","datatype":"contig","blocking":"per-op","target":"all-to-all"},"cr":0.5,"kind":"crossing","load":0.5}],
 "averages":[{"n":2,"g":1,"cr":0.5,"low":` + low + `,"high":` + high + `}]}`
	if err := os.WriteFile(filepath.Join(dir, "t.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Every message that docs/reference.md and docs/guide.md quote as Ghost's
// output is printed, word for word, by one of these jobs: a new example in
// the docs needs a job here, and a changed message needs its example
// changed.
func TestDocsExamples(t *testing.T) {
	needMPI(t)
	world := program(t, "world.c")
	lifecycle := program(t, "lifecycle.c")
	good := writeThresholds(t, "0.33", "0.9")
	bad := writeThresholds(t, "0.7", "0.6")
	ghost := filepath.Join(buildDir, "ghost")
	short := 60 * time.Second
	results := []result{
		// A bad value, and a count that leaves a node without a user.
		mpiexecRun(t, job{env: []string{"GHOST_NG=two"}, args: []string{world, "2", "2"}, timeout: short}, 3, true),
		mpiexecRun(t, job{env: []string{"GHOST_NG=2"}, args: []string{world, "2", "2"}, timeout: short}, 2, true),
		// A misspelt variable, the profile totals, a thresholds file and
		// the second node's exporter, in one job on two fake nodes.
		ghostRun(t, job{users: 2, ghosts: 1, hosts: "nodeA:2,nodeB:2", args: []string{world, "2", "2"}, timeout: short,
			env: []string{"GHOST_WIAT=spin", "GHOST_PROFILE=1", "GHOST_VERBOSE=info",
				"GHOST_THRESHOLDS=" + filepath.Join(good, "t.json")}}),
		ghostRun(t, job{users: 2, ghosts: 1, args: []string{world, "2", "2"}, timeout: short,
			env: []string{"GHOST_THRESHOLDS=" + filepath.Join(bad, "t.json")}}),
		abortWithNotice(t, lifecycle),
		// A fatal error on a window, with the user rank named.
		ghostRun(t, job{users: 2, ghosts: 1, args: []string{program(t, "fatal.c"), "win"}, timeout: short}),
		// An allocation too small for the job, as `ghost run` sees it from
		// Slurm's variables; nothing is started.
		execute(t, job{env: []string{"SLURM_JOB_ID=5", "SLURM_JOB_NODELIST=n[1-2]", "SLURM_JOB_NUM_NODES=2",
			"SLURM_JOB_CPUS_PER_NODE=3(x2)"}}, ghost, "run", "-n", "6", "--dry-run", "--", world),
	}
	printed := map[string]bool{}
	for _, r := range results {
		out := r.stderr
		for _, dir := range []string{good, bad} {
			out = strings.ReplaceAll(out, dir+string(filepath.Separator), "")
		}
		for _, l := range strings.Split(out, "\n") {
			printed[maskExample(strings.TrimSpace(l))] = true
		}
	}
	quoted := 0
	for _, doc := range exampleDocs {
		lines, numbers := fencedLines(t, doc)
		for i, l := range lines {
			if !quotedOutput.MatchString(l) {
				continue
			}
			quoted++
			if !printed[maskExample(l)] {
				t.Errorf("%s:%d quotes a message no job printed:\n  %s", doc, numbers[i], l)
			}
		}
	}
	if quoted == 0 {
		t.Fatal("no quoted message found in the docs")
	}
	if t.Failed() {
		for _, r := range results {
			t.Log(r)
		}
	}
}

// abortWithNotice runs a job whose user rank 1 calls MPI_Abort, until Ghost's
// notice of the caller's rank reaches stderr: hydra may kill the caller's
// proxy before it forwards that line (about one run in eight here), which
// says nothing about the line's wording. Three tries.
func abortWithNotice(t *testing.T, bin string) result {
	t.Helper()
	var r result
	for try := 0; try < 3; try++ {
		r = ghostRun(t, job{users: 2, ghosts: 1, args: []string{bin, "abort", "7"}, timeout: time.Minute})
		if strings.Contains(r.stderr, "ghost: MPI_Abort(7) called by rank") {
			break
		}
	}
	return r
}

// The guide's `ghost report` example is the report of the trace committed
// as docs/examples/run.jsonl. A line "..." in the example stands for lines
// left out.
func TestDocsReportExample(t *testing.T) {
	needMPI(t) // for the built ghost binary; the report itself runs no job
	lines, numbers := fencedLines(t, "../docs/guide.md")
	const command = "$ ghost report --plot run.png run.jsonl"
	start := -1
	for i, l := range lines {
		if l == command {
			start = i + 1
		}
	}
	if start < 0 {
		t.Fatalf("docs/guide.md has no line %q", command)
	}
	var example []string
	for i := start; i < len(lines) && numbers[i] == numbers[start]+(i-start); i++ {
		example = append(example, lines[i])
	}
	dir := t.TempDir()
	trace, err := os.ReadFile("../docs/examples/run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.jsonl"), trace, 0o644); err != nil {
		t.Fatal(err)
	}
	r := execute(t, job{}, filepath.Join(buildDir, "ghost"), "report", "--plot", filepath.Join(dir, "run.png"), filepath.Join(dir, "run.jsonl"))
	if r.code != 0 {
		t.Fatalf("ghost report failed:\n%s", r)
	}
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(r.stdout, dir+string(filepath.Separator), ""), "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	if msg := matchElided(example, out); msg != "" {
		t.Errorf("docs/guide.md's report example is not what `ghost report` prints for docs/examples/run.jsonl: %s\n--- printed\n%s",
			msg, strings.Join(out, "\n"))
	}
}

// matchElided checks that want, in which a line "..." stands for any lines,
// is got from its first line on; it returns what differs, or "".
func matchElided(want, got []string) string {
	j := 0
	for i := 0; i < len(want); i++ {
		if want[i] == "..." {
			if i+1 == len(want) {
				return ""
			}
			for j < len(got) && got[j] != want[i+1] {
				j++
			}
			continue
		}
		if j >= len(got) {
			return "the report ends before " + want[i]
		}
		if got[j] != want[i] {
			return "the example says " + want[i] + ", the report " + got[j]
		}
		j++
	}
	return ""
}

func TestMatchElided(t *testing.T) {
	got := []string{"a", "b", "c", "d"}
	for _, tt := range []struct {
		want []string
		ok   bool
	}{
		{[]string{"a", "b", "c", "d"}, true},
		{[]string{"a", "..."}, true},
		{[]string{"a", "...", "d"}, true},
		{[]string{"a", "...", "e"}, false},
		{[]string{"a", "c"}, false},
		{[]string{"a", "b", "c", "d", "e"}, false},
	} {
		if ok := matchElided(tt.want, got) == ""; ok != tt.ok {
			t.Errorf("matchElided(%q) ok = %v, want %v", tt.want, ok, tt.ok)
		}
	}
}

// The reference's trace line is a profile.Record as the library writes it:
// the same fields, in the same order, spelt the same.
func TestDocsTraceExample(t *testing.T) {
	lines, _ := fencedLines(t, "../docs/reference.md")
	var example string
	for i, l := range lines {
		if strings.HasPrefix(l, `{"t":`) {
			example = l
			if i+1 < len(lines) && !strings.HasSuffix(l, "}") {
				example += lines[i+1]
			}
		}
	}
	if example == "" {
		t.Fatal("docs/reference.md quotes no trace line")
	}
	var rec profile.Record
	dec := json.NewDecoder(strings.NewReader(example))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		t.Fatalf("the reference's trace line is not a record: %v\n%s", err, example)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != example {
		t.Errorf("the reference's trace line:\n  %s\nthe library writes that record as:\n  %s", example, b)
	}
}

// repoPath matches a backticked path into the repository.
var repoPath = regexp.MustCompile("`((?:c|shim|redirect|internal|adapt|profile|cmd|bench|docs|test)/[A-Za-z0-9_./-]*)`")

// plainRepoPath matches a path into the repository anywhere.
var plainRepoPath = regexp.MustCompile(`\b(?:c|shim|redirect|internal|adapt|profile|cmd)/[A-Za-z0-9_./-]*`)

// bareCFile matches a backticked C file name, which the design's map gives
// relative to c/.
var bareCFile = regexp.MustCompile("`([a-z_]+\\.[ch])`")

// Every file that docs/design.md names exists, and so does every file of
// its opening map, where C files are named relative to c/.
func TestDesignNamesExistingFiles(t *testing.T) {
	b, err := os.ReadFile("../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	paths := map[string]bool{}
	for _, m := range repoPath.FindAllStringSubmatch(text, -1) {
		paths[strings.TrimSuffix(m[1], "/")] = true
	}
	start := strings.Index(text, "\n## Map\n")
	if start < 0 {
		t.Fatal("docs/design.md has no map")
	}
	end := strings.Index(text[start+1:], "\n## ")
	mapText := text[start : start+1+end]
	for _, m := range bareCFile.FindAllStringSubmatch(mapText, -1) {
		paths["c/"+m[1]] = true
	}
	// The map's flow diagrams name paths outside backticks.
	for _, m := range plainRepoPath.FindAllString(mapText, -1) {
		paths[strings.TrimRight(m, "./")] = true
	}
	if len(paths) < 20 {
		t.Fatalf("found only %d paths in docs/design.md", len(paths))
	}
	for p := range paths {
		if _, err := os.Stat(filepath.Join("..", p)); err != nil {
			t.Errorf("docs/design.md names %s, which does not exist", p)
		}
	}
}

package adapt

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validFile is a small well-formed thresholds file as generic JSON, for
// tests to mutate: two deployments, (2, 1) with two patterns and (4, 1)
// with one.
func validFile() map[string]any {
	pattern := func(op, dt string) map[string]any {
		return map[string]any{"op": op, "datatype": dt, "blocking": "per-op", "target": "all-to-all"}
	}
	return map[string]any{
		"format":  "ghost-thresholds",
		"version": 1,
		"created": "2025-01-02T03:04:05Z",
		"machine": map[string]any{"hostname": "box", "cores": 2, "mpi": "MPICH Version: 4.0.2", "hosts": ""},
		"sweep":   map[string]any{"quick": true, "tolerance": 0.05, "probe_seconds": 0.3, "steps": 3},
		"boundaries": []any{
			map[string]any{"n": 2, "g": 1, "pattern": pattern("put", "contig"), "cr": 0.4, "kind": "crossing", "load": 0.5},
			map[string]any{"n": 2, "g": 1, "pattern": pattern("acc", "subarray"), "cr": 0.6, "kind": "interpolated", "load": 0.7},
			map[string]any{"n": 4, "g": 1, "pattern": pattern("fop", "contig"), "cr": 0.5, "kind": "on-wins", "load": 1},
		},
		"averages": []any{
			map[string]any{"n": 2, "g": 1, "cr": 0.5, "low": 0.4, "high": 0.6},
			map[string]any{"n": 4, "g": 1, "cr": 0.5, "low": 0.45, "high": 0.55},
		},
	}
}

func encodeJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// at returns the object at path inside m ("boundaries.1.pattern").
func at(m map[string]any, path string) map[string]any {
	cur := any(m)
	for _, p := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			i := int(p[0] - '0')
			cur = c[i]
		}
	}
	return cur.(map[string]any)
}

func TestParseThresholds(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(m map[string]any)
		raw    string // used instead of the mutated file when set
		err    string // "" for a valid file
	}{
		{name: "valid", mutate: func(map[string]any) {}},
		{name: "not JSON", raw: "{", err: "not valid JSON"},
		{name: "empty", raw: "", err: "not valid JSON"},
		{name: "trailing text", raw: "", err: "text after the JSON object"},
		{name: "wrong format", mutate: func(m map[string]any) { m["format"] = "casper" }, err: `"format" must be "ghost-thresholds"`},
		{name: "no format", mutate: func(m map[string]any) { delete(m, "format") }, err: `"format" must be`},
		{name: "unknown version", mutate: func(m map[string]any) { m["version"] = 2; m["novelty"] = 1 },
			err: "version 2 is not supported (this Ghost reads version 1)"},
		{name: "no version", mutate: func(m map[string]any) { delete(m, "version") }, err: `missing field "version"`},
		{name: "unknown field", mutate: func(m map[string]any) { m["extra"] = 1 }, err: `unknown field "extra"`},
		{name: "missing averages", mutate: func(m map[string]any) { delete(m, "averages") }, err: `missing field "averages"`},
		{name: "null boundaries", mutate: func(m map[string]any) { m["boundaries"] = nil }, err: `missing field "boundaries"`},
		{name: "missing created", mutate: func(m map[string]any) { delete(m, "created") }, err: `missing field "created"`},
		{name: "bad created", mutate: func(m map[string]any) { m["created"] = "yesterday" }, err: `created "yesterday" is not an RFC 3339 time`},
		{name: "missing hostname", mutate: func(m map[string]any) { delete(at(m, "machine"), "hostname") },
			err: `machine: missing field "hostname"`},
		{name: "zero cores", mutate: func(m map[string]any) { at(m, "machine")["cores"] = 0 }, err: "machine: cores 0 must be at least 1"},
		{name: "missing tolerance", mutate: func(m map[string]any) { delete(at(m, "sweep"), "tolerance") },
			err: `sweep: missing field "tolerance"`},
		{name: "tolerance 1", mutate: func(m map[string]any) { at(m, "sweep")["tolerance"] = 1 }, err: "sweep: tolerance 1 must be between 0 and 1"},
		{name: "missing boundary cr", mutate: func(m map[string]any) { delete(at(m, "boundaries.1"), "cr") },
			err: `boundaries[1]: missing field "cr"`},
		{name: "missing pattern op", mutate: func(m map[string]any) { delete(at(m, "boundaries.0.pattern"), "op") },
			err: `boundaries[0]: pattern: missing field "op"`},
		{name: "cr above 1", mutate: func(m map[string]any) { at(m, "boundaries.0")["cr"] = 1.2 }, err: "boundaries[0]: cr 1.2 is outside [0, 1]"},
		{name: "cr below 0", mutate: func(m map[string]any) { at(m, "boundaries.2")["cr"] = -0.1 }, err: "boundaries[2]: cr -0.1 is outside [0, 1]"},
		{name: "unknown op", mutate: func(m map[string]any) { at(m, "boundaries.0.pattern")["op"] = "rput" },
			err: `boundaries[0]: pattern: op "rput" is not one of put, get, acc, get_acc, fop, cas`},
		{name: "strided cas", mutate: func(m map[string]any) {
			at(m, "boundaries.2.pattern")["op"] = "cas"
			at(m, "boundaries.2.pattern")["datatype"] = "subarray"
		},
			err: "op cas takes a single element"},
		{name: "unknown kind", mutate: func(m map[string]any) { at(m, "boundaries.0")["kind"] = "guess" }, err: `kind "guess" is not one of`},
		{name: "zero load", mutate: func(m map[string]any) { at(m, "boundaries.0")["load"] = 0 }, err: "load 0 is outside (0, 1]"},
		{name: "zero ghosts", mutate: func(m map[string]any) { at(m, "boundaries.0")["g"] = 0 }, err: "boundaries[0]: g 0 must be from 1 to 8"},
		{name: "duplicate boundary", mutate: func(m map[string]any) {
			at(m, "boundaries.1.pattern")["op"] = "put"
			at(m, "boundaries.1.pattern")["datatype"] = "contig"
		},
			err: "boundaries[1]: a second boundary for n=2 g=1 put/contig/per-op/all-to-all"},
		{name: "low equals high", mutate: func(m map[string]any) { at(m, "averages.0")["low"] = 0.6 }, err: "averages[0]: low 0.6 must be below high 0.6"},
		{name: "low above high", mutate: func(m map[string]any) { at(m, "averages.1")["low"] = 0.7 }, err: "averages[1]: low 0.7 must be below high 0.55"},
		{name: "high above 1", mutate: func(m map[string]any) { at(m, "averages.0")["high"] = 1.5 }, err: "must all lie in [0, 1]"},
		{name: "cr outside band", mutate: func(m map[string]any) { at(m, "averages.0")["cr"] = 0.3 }, err: "cr 0.3 must lie between low 0.4 and high 0.6"},
		{name: "duplicate average", mutate: func(m map[string]any) { at(m, "averages.1")["n"] = 2 }, err: "averages[1]: a second average for n=2 g=1"},
		{name: "average without boundaries", mutate: func(m map[string]any) { at(m, "averages.1")["g"] = 2 },
			err: "averages[1]: no boundary has n=4 g=2"},
		{name: "boundaries without average", mutate: func(m map[string]any) { m["averages"] = m["averages"].([]any)[:1] },
			err: "boundaries for n=4 g=1 have no average"},
		{name: "no averages", mutate: func(m map[string]any) { m["averages"] = []any{}; m["boundaries"] = []any{} },
			err: "averages is empty"},
		{name: "wrong type", mutate: func(m map[string]any) { at(m, "averages.0")["n"] = "two" }, err: "does not follow the format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var data []byte
			switch {
			case tt.name == "trailing text":
				data = append(encodeJSON(t, validFile()), []byte(" {}")...)
			case tt.mutate == nil:
				data = []byte(tt.raw)
			default:
				m := validFile()
				tt.mutate(m)
				data = encodeJSON(t, m)
			}
			f, err := ParseThresholds("x.json", data)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if len(f.Boundaries) != 3 || len(f.Averages) != 2 || f.Machine.Cores != 2 || f.Sweep.Steps != 3 {
					t.Errorf("parsed %+v", f)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want error %q", tt.err)
			}
			if !strings.HasPrefix(err.Error(), "thresholds file x.json: ") || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %q, want it to name the file and say %q", err, tt.err)
			}
		})
	}
}

func TestParseThresholdsDuplicateKeys(t *testing.T) {
	tests := []struct {
		name, text, err string
	}{
		{"top level", `{"format":"ghost-thresholds","format":"ghost-thresholds"}`, `key "format" appears twice`},
		{"nested", `{"machine":{"cores":1,"cores":2}}`, `machine.key "cores" appears twice`},
		{"in an array", `{"averages":[{"n":1},{"n":1,"n":2}]}`, `averages.1.key "n" appears twice`},
		{"same key in siblings is fine", `{"a":{"n":1},"b":{"n":1}}`, `"format" must be`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseThresholds("d.json", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want %q", err, tt.err)
			}
		})
	}
}

func TestThresholdsRoundTrip(t *testing.T) {
	f, err := ParseThresholds("a", encodeJSON(t, validFile()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	g, err := ParseThresholds("b", b)
	if err != nil {
		t.Fatalf("re-encoded file rejected: %v\n%s", err, b)
	}
	b2, _ := g.Encode()
	if !bytes.Equal(b, b2) || !g.Created.Equal(f.Created) {
		t.Errorf("round trip changed the file:\n%s\n%s", b, b2)
	}
}

func TestLoadThresholdsMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.json")
	_, err := LoadThresholds(path)
	if err == nil || !strings.Contains(err.Error(), "thresholds file "+path+": no such file or directory") {
		t.Errorf("err = %v", err)
	}
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadThresholds(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v", err)
	}
}

func TestDeriveAverage(t *testing.T) {
	tests := []struct {
		name          string
		crs           []float64
		cr, low, high float64
		err           string
	}{
		{name: "two apart: mean plus and minus sd is the range", crs: []float64{0.3, 0.7}, cr: 0.5, low: 0.3, high: 0.7},
		{name: "one pattern: widened to the minimum band", crs: []float64{0.42}, cr: 0.42, low: 0.37, high: 0.47},
		{name: "near zero: band kept inside [0, 1]", crs: []float64{0.01, 0.02}, cr: 0.015, low: 0, high: 0.1},
		{name: "near one", crs: []float64{0.99, 1}, cr: 0.995, low: 0.9, high: 1},
		// mean 0.25, sd 0.433: mean-sd is below the smallest boundary.
		{name: "skewed: clamped to the smallest boundary", crs: []float64{0, 0, 0, 1}, cr: 0.25, low: 0, high: 0.683},
		{name: "outlier does not take the whole range", crs: []float64{0.4, 0.45, 0.5, 0.45, 0.95}, cr: 0.55, low: 0.4, high: 0.7525},
		{name: "none", crs: nil, err: "no boundary to average"},
		{name: "out of range", crs: []float64{0.5, 1.5}, err: "boundary CR 1.5 is outside [0, 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := DeriveAverage(2, 1, tt.crs)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			near := func(x, y float64) bool { return math.Abs(x-y) < 1e-3 }
			if !near(a.CR, tt.cr) || !near(a.Low, tt.low) || !near(a.High, tt.high) || a.N != 2 || a.G != 1 {
				t.Errorf("got %+v, want cr %g low %g high %g", a, tt.cr, tt.low, tt.high)
			}
			if err := a.Thresholds().Validate(); err != nil {
				t.Errorf("derived pair invalid: %v", err)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	f := &ThresholdsFile{Averages: []Average{
		{N: 2, G: 1, CR: 0.5, Low: 0.4, High: 0.6},
		{N: 8, G: 1, CR: 0.5, Low: 0.3, High: 0.7},
		{N: 4, G: 2, CR: 0.5, Low: 0.2, High: 0.8},
		{N: 16, G: 3, CR: 0.5, Low: 0.1, High: 0.9},
	}}
	tests := []struct {
		name  string
		n, g  int
		wantN int
		wantG int
	}{
		{"exact", 8, 1, 8, 1},
		{"nearest n by ratio: 3 is nearer 2 than 8", 3, 1, 2, 1},
		{"ratio tie goes to the larger n: 4 is as near 2 as 8", 4, 1, 8, 1},
		{"ghost count first: g=2 wins over a closer n", 8, 2, 4, 2},
		{"beyond the largest", 100, 1, 8, 1},
		{"nearest ghost count above", 16, 4, 16, 3},
		{"nearest ghost count below", 2, 0, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := f.Select(tt.n, tt.g)
			if err != nil {
				t.Fatal(err)
			}
			if a.N != tt.wantN || a.G != tt.wantG {
				t.Errorf("Select(%d, %d) = n=%d g=%d, want n=%d g=%d", tt.n, tt.g, a.N, a.G, tt.wantN, tt.wantG)
			}
		})
	}
	tie := &ThresholdsFile{Averages: []Average{{N: 2, G: 3, Low: 0.1, High: 0.9}, {N: 2, G: 1, Low: 0.4, High: 0.6}}}
	if a, _ := tie.Select(2, 2); a.G != 1 {
		t.Errorf("ghost tie between 1 and 3 picked g=%d, want the smaller", a.G)
	}
	if _, err := (&ThresholdsFile{}).Select(2, 1); err == nil {
		t.Error("empty file selected something")
	}
	if _, err := f.Select(0, 1); err == nil {
		t.Error("n=0 selected something")
	}
}

func TestOverride(t *testing.T) {
	file := Thresholds{Low: 0.4, High: 0.6}
	tests := []struct {
		name            string
		env             Thresholds
		lowSet, highSet bool
		want            Thresholds
		err             bool
	}{
		{"nothing set: the file", Thresholds{0.3, 0.6}, false, false, file, false},
		{"both set: the environment", Thresholds{0.1, 0.9}, true, true, Thresholds{0.1, 0.9}, false},
		{"low set", Thresholds{0.2, 0.6}, true, false, Thresholds{0.2, 0.6}, false},
		{"high set", Thresholds{0.3, 0.5}, false, true, Thresholds{0.4, 0.5}, false},
		{"mix does not fit", Thresholds{0.3, 0.35}, false, true, file, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Override(file, tt.env, tt.lowSet, tt.highSet)
			if (err != nil) != tt.err || got != tt.want {
				t.Errorf("got %+v, %v; want %+v, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// FuzzParseThresholds: the parser never panics, and whatever it accepts
// encodes to a file it accepts again, unchanged.
func FuzzParseThresholds(f *testing.F) {
	valid, _ := json.Marshal(validFile())
	f.Add(valid)
	f.Add([]byte(`{"format":"ghost-thresholds","version":1}`))
	f.Add([]byte(`{"format":"ghost-thresholds","version":1,"format":"x"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tf, err := ParseThresholds("fuzz", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "thresholds file fuzz: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		b, err := tf.Encode()
		if err != nil {
			t.Fatalf("accepted file does not encode: %v", err)
		}
		again, err := ParseThresholds("again", b)
		if err != nil {
			t.Fatalf("encoded file rejected: %v\n%s", err, b)
		}
		b2, err := again.Encode()
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("round trip changed the file:\n%s\n%s", b, b2)
		}
		for _, a := range tf.Averages {
			if err := a.Thresholds().Validate(); err != nil {
				t.Fatalf("accepted average gives invalid thresholds: %v", err)
			}
		}
	})
}

func TestChoose(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, encodeJSON(t, validFile()), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format":"ghost-thresholds","version":7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := Thresholds{Low: 0.3, High: 0.6}
	tests := []struct {
		name            string
		path            string
		n, g            int
		lowSet, highSet bool
		want            Thresholds
		line, err       string
	}{
		{name: "nearest deployment", path: good, n: 3, g: 1, want: Thresholds{0.45, 0.55},
			line: "GHOST_THRESHOLDS=" + good + ": CR thresholds low 0.45 high 0.55 (calibrated n=4 g=1 on box, 2025-01-02T03:04:05Z)"},
		{name: "explicit high wins", path: good, n: 2, g: 1, highSet: true, want: Thresholds{0.4, 0.6},
			line: "from the environment win"},
		{name: "missing file", path: filepath.Join(dir, "none.json"), n: 2, g: 1, want: env,
			err: "thresholds file " + filepath.Join(dir, "none.json") + ": no such file or directory"},
		{name: "malformed file", path: bad, n: 2, g: 1, want: env, err: "thresholds file " + bad + ": version 7 is not supported"},
		{name: "explicit low does not fit", path: good, n: 4, g: 1, lowSet: true, want: env, err: "do not fit the file's values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env
			if tt.name == "explicit low does not fit" {
				e.Low = 0.58
			}
			got, line, err := Choose(tt.path, tt.n, tt.g, e, tt.lowSet, tt.highSet)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if got != e {
					t.Errorf("on error got %+v, want the environment's %+v", got, e)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || !strings.Contains(line, tt.line) {
				t.Errorf("got %+v %q, want %+v %q", got, line, tt.want, tt.line)
			}
		})
	}
}

package adapt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ghost-mpi/ghost/internal/config"
)

// A thresholds file is what `ghost calibrate` measures on a machine: for
// every calibrated deployment (n user processes, g ghosts per node) and
// every communication pattern, the CR at which redirection on and off cost
// the same (a boundary), and per deployment the LOW/HIGH pair derived from
// its boundaries (an average). GHOST_THRESHOLDS points the library at one;
// docs/calibrate.md describes the format and the rules below.

// ThresholdsFormat and ThresholdsVersion identify the file format. A
// version this code does not know is an error, not a guess.
const (
	ThresholdsFormat  = "ghost-thresholds"
	ThresholdsVersion = 1
)

// MinBand is the narrowest LOW..HIGH band DeriveAverage produces. Patterns
// that all cross at one CR would otherwise give LOW = HIGH, and a band of
// zero width makes a process near the boundary flip its vote every
// interval.
const MinBand = 0.1

// The values of each pattern dimension, in sweep order.
var (
	PatternOps       = []string{"put", "get", "acc", "get_acc", "fop", "cas"}
	PatternDatatypes = []string{"contig", "subarray"}
	PatternBlockings = []string{"per-op", "per-batch"}
	PatternTargets   = []string{"all-to-all", "all-to-one-node"}
)

// Kinds of boundary: how the calibration found the CR.
const (
	// KindCrossing: a probe where on and off cost the same within the
	// tolerance.
	KindCrossing = "crossing"
	// KindInterpolated: the search bracketed the crossing but ran out of
	// steps; the CR is interpolated between the bracketing probes.
	KindInterpolated = "interpolated"
	// KindOnWins: redirection was cheaper at every load tried, the highest
	// included; the CR is the one at the highest load (a lower bound).
	KindOnWins = "on-wins"
	// KindOffWins: redirection was dearer at every load tried, the lowest
	// included; the CR is the one at the lowest load (an upper bound).
	KindOffWins = "off-wins"
)

var boundaryKinds = []string{KindCrossing, KindInterpolated, KindOnWins, KindOffWins}

// Pattern is one point of the calibration's pattern space.
type Pattern struct {
	Op       string `json:"op"`       // one of PatternOps
	Datatype string `json:"datatype"` // one of PatternDatatypes
	Blocking string `json:"blocking"` // one of PatternBlockings
	Target   string `json:"target"`   // one of PatternTargets
}

func (p Pattern) String() string {
	return p.Op + "/" + p.Datatype + "/" + p.Blocking + "/" + p.Target
}

// Validate checks every dimension. MPI_Fetch_and_op and
// MPI_Compare_and_swap take one predefined element, so they have no strided
// form.
func (p Pattern) Validate() error {
	for _, d := range []struct {
		name, value string
		accepted    []string
	}{
		{"op", p.Op, PatternOps},
		{"datatype", p.Datatype, PatternDatatypes},
		{"blocking", p.Blocking, PatternBlockings},
		{"target", p.Target, PatternTargets},
	} {
		if !slices.Contains(d.accepted, d.value) {
			return fmt.Errorf("%s %q is not one of %s", d.name, d.value, strings.Join(d.accepted, ", "))
		}
	}
	if (p.Op == "fop" || p.Op == "cas") && p.Datatype != "contig" {
		return fmt.Errorf("op %s takes a single element: datatype must be contig, not %q", p.Op, p.Datatype)
	}
	return nil
}

// Boundary is the measured crossing of one pattern in one deployment.
type Boundary struct {
	N       int     `json:"n"` // user processes of the calibration job
	G       int     `json:"g"` // ghosts per node
	Pattern Pattern `json:"pattern"`
	CR      float64 `json:"cr"`
	Kind    string  `json:"kind"` // one of the Kind* constants
	// Load is the nominal fraction of time communicating at which CR was
	// measured (see docs/calibrate.md).
	Load float64 `json:"load"`
}

// Average is the threshold pair of one deployment.
type Average struct {
	N    int     `json:"n"`
	G    int     `json:"g"`
	CR   float64 `json:"cr"` // mean of the deployment's boundaries
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Thresholds is the pair the predictor uses.
func (a Average) Thresholds() Thresholds { return Thresholds{Low: a.Low, High: a.High} }

// Machine says where a file was measured.
type Machine struct {
	Hostname string `json:"hostname"`
	Cores    int    `json:"cores"`
	MPI      string `json:"mpi"`   // MPI_Get_library_version's first line
	Hosts    string `json:"hosts"` // the --hosts fake-node layout, "" for one node
}

// Sweep records how the calibration ran.
type Sweep struct {
	Quick        bool    `json:"quick"`
	Tolerance    float64 `json:"tolerance"` // on and off "cost the same" within this fraction
	ProbeSeconds float64 `json:"probe_seconds"`
	Steps        int     `json:"steps"` // bisection steps per pattern at most
}

// ThresholdsFile is a parsed, valid thresholds file.
type ThresholdsFile struct {
	Format     string     `json:"format"`
	Version    int        `json:"version"`
	Created    time.Time  `json:"created"`
	Machine    Machine    `json:"machine"`
	Sweep      Sweep      `json:"sweep"`
	Boundaries []Boundary `json:"boundaries"`
	Averages   []Average  `json:"averages"`
}

// Encode writes f as indented JSON, the form Parse reads back.
func (f *ThresholdsFile) Encode() ([]byte, error) {
	out := *f
	out.Format, out.Version = ThresholdsFormat, ThresholdsVersion
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// LoadThresholds reads and parses the file at path.
func LoadThresholds(path string) (*ThresholdsFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("thresholds file %s: %v", path, errors.Unwrap(err))
	}
	return ParseThresholds(path, data)
}

// ParseThresholds parses and validates a thresholds file; name is used in
// error messages. Unknown fields, missing fields, repeated JSON keys, values
// out of range and repeated (n, g, pattern) or (n, g) entries are errors.
func ParseThresholds(name string, data []byte) (*ThresholdsFile, error) {
	f, err := parseThresholds(data)
	if err != nil {
		return nil, fmt.Errorf("thresholds file %s: %v", name, err)
	}
	return f, nil
}

// The wire form has pointers so that a missing field can be told from a
// zero.
type (
	wirePattern struct {
		Op       *string `json:"op"`
		Datatype *string `json:"datatype"`
		Blocking *string `json:"blocking"`
		Target   *string `json:"target"`
	}
	wireBoundary struct {
		N       *int         `json:"n"`
		G       *int         `json:"g"`
		Pattern *wirePattern `json:"pattern"`
		CR      *float64     `json:"cr"`
		Kind    *string      `json:"kind"`
		Load    *float64     `json:"load"`
	}
	wireAverage struct {
		N    *int     `json:"n"`
		G    *int     `json:"g"`
		CR   *float64 `json:"cr"`
		Low  *float64 `json:"low"`
		High *float64 `json:"high"`
	}
	wireMachine struct {
		Hostname *string `json:"hostname"`
		Cores    *int    `json:"cores"`
		MPI      *string `json:"mpi"`
		Hosts    *string `json:"hosts"`
	}
	wireSweep struct {
		Quick        *bool    `json:"quick"`
		Tolerance    *float64 `json:"tolerance"`
		ProbeSeconds *float64 `json:"probe_seconds"`
		Steps        *int     `json:"steps"`
	}
	wireFile struct {
		Format     *string         `json:"format"`
		Version    *int            `json:"version"`
		Created    *string         `json:"created"`
		Machine    *wireMachine    `json:"machine"`
		Sweep      *wireSweep      `json:"sweep"`
		Boundaries *[]wireBoundary `json:"boundaries"`
		Averages   *[]wireAverage  `json:"averages"`
	}
)

// missing returns an error naming the first absent field. fields are
// pairs of a name and a pointer (or slice pointer) that JSON left nil.
func missing(where string, fields ...any) error {
	for i := 0; i+1 < len(fields); i += 2 {
		if reflect.ValueOf(fields[i+1]).IsNil() {
			return fmt.Errorf("%smissing field %q", where, fields[i])
		}
	}
	return nil
}

func parseThresholds(data []byte) (*ThresholdsFile, error) {
	if err := checkDuplicateKeys(data); err != nil {
		return nil, err
	}
	// The format and version come first: a file of another format or of a
	// later version is reported as such, not by its first unknown field.
	var head struct {
		Format  *string `json:"format"`
		Version *int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("cannot read its format and version: %v", err)
	}
	if head.Format == nil || *head.Format != ThresholdsFormat {
		return nil, fmt.Errorf("\"format\" must be %q", ThresholdsFormat)
	}
	if head.Version == nil {
		return nil, fmt.Errorf("missing field \"version\"")
	}
	if *head.Version != ThresholdsVersion {
		return nil, fmt.Errorf("version %d is not supported (this Ghost reads version %d)", *head.Version, ThresholdsVersion)
	}
	var w wireFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("does not follow the format: %v", err)
	}
	if err := missing("", "created", w.Created, "machine", w.Machine, "sweep", w.Sweep,
		"boundaries", w.Boundaries, "averages", w.Averages); err != nil {
		return nil, err
	}
	f := &ThresholdsFile{Format: ThresholdsFormat, Version: ThresholdsVersion}
	created, err := time.Parse(time.RFC3339, *w.Created)
	if err != nil {
		return nil, fmt.Errorf("created %q is not an RFC 3339 time", *w.Created)
	}
	f.Created = created
	m := w.Machine
	if err := missing("machine: ", "hostname", m.Hostname, "cores", m.Cores, "mpi", m.MPI, "hosts", m.Hosts); err != nil {
		return nil, err
	}
	if *m.Cores < 1 {
		return nil, fmt.Errorf("machine: cores %d must be at least 1", *m.Cores)
	}
	f.Machine = Machine{Hostname: *m.Hostname, Cores: *m.Cores, MPI: *m.MPI, Hosts: *m.Hosts}
	s := w.Sweep
	if err := missing("sweep: ", "quick", s.Quick, "tolerance", s.Tolerance, "probe_seconds", s.ProbeSeconds, "steps", s.Steps); err != nil {
		return nil, err
	}
	switch {
	case !(*s.Tolerance > 0 && *s.Tolerance < 1):
		return nil, fmt.Errorf("sweep: tolerance %g must be between 0 and 1", *s.Tolerance)
	case !(*s.ProbeSeconds > 0):
		return nil, fmt.Errorf("sweep: probe_seconds %g must be positive", *s.ProbeSeconds)
	case *s.Steps < 0:
		return nil, fmt.Errorf("sweep: steps %d must not be negative", *s.Steps)
	}
	f.Sweep = Sweep{Quick: *s.Quick, Tolerance: *s.Tolerance, ProbeSeconds: *s.ProbeSeconds, Steps: *s.Steps}

	type deployment struct{ n, g int }
	seenPattern := map[string]bool{}
	withBoundaries := map[deployment]bool{}
	for i, wb := range *w.Boundaries {
		where := fmt.Sprintf("boundaries[%d]: ", i)
		if err := missing(where, "n", wb.N, "g", wb.G, "pattern", wb.Pattern, "cr", wb.CR, "kind", wb.Kind, "load", wb.Load); err != nil {
			return nil, err
		}
		wp := wb.Pattern
		if err := missing(where+"pattern: ", "op", wp.Op, "datatype", wp.Datatype, "blocking", wp.Blocking, "target", wp.Target); err != nil {
			return nil, err
		}
		b := Boundary{N: *wb.N, G: *wb.G, CR: *wb.CR, Kind: *wb.Kind, Load: *wb.Load,
			Pattern: Pattern{Op: *wp.Op, Datatype: *wp.Datatype, Blocking: *wp.Blocking, Target: *wp.Target}}
		if err := checkDeployment(b.N, b.G); err != nil {
			return nil, fmt.Errorf("%s%v", where, err)
		}
		if err := b.Pattern.Validate(); err != nil {
			return nil, fmt.Errorf("%spattern: %v", where, err)
		}
		switch {
		case !inUnit(b.CR):
			return nil, fmt.Errorf("%scr %g is outside [0, 1]", where, b.CR)
		case !slices.Contains(boundaryKinds, b.Kind):
			return nil, fmt.Errorf("%skind %q is not one of %s", where, b.Kind, strings.Join(boundaryKinds, ", "))
		case !(b.Load > 0 && b.Load <= 1):
			return nil, fmt.Errorf("%sload %g is outside (0, 1]", where, b.Load)
		}
		key := fmt.Sprintf("n=%d g=%d %s", b.N, b.G, b.Pattern)
		if seenPattern[key] {
			return nil, fmt.Errorf("%sa second boundary for %s", where, key)
		}
		seenPattern[key] = true
		withBoundaries[deployment{b.N, b.G}] = true
		f.Boundaries = append(f.Boundaries, b)
	}
	if len(*w.Averages) == 0 {
		return nil, fmt.Errorf("averages is empty: the file calibrates no deployment")
	}
	withAverage := map[deployment]bool{}
	for i, wa := range *w.Averages {
		where := fmt.Sprintf("averages[%d]: ", i)
		if err := missing(where, "n", wa.N, "g", wa.G, "cr", wa.CR, "low", wa.Low, "high", wa.High); err != nil {
			return nil, err
		}
		a := Average{N: *wa.N, G: *wa.G, CR: *wa.CR, Low: *wa.Low, High: *wa.High}
		if err := checkDeployment(a.N, a.G); err != nil {
			return nil, fmt.Errorf("%s%v", where, err)
		}
		switch {
		case !inUnit(a.CR) || !inUnit(a.Low) || !inUnit(a.High):
			return nil, fmt.Errorf("%scr %g, low %g and high %g must all lie in [0, 1]", where, a.CR, a.Low, a.High)
		case a.Low >= a.High:
			return nil, fmt.Errorf("%slow %g must be below high %g", where, a.Low, a.High)
		case a.CR < a.Low || a.CR > a.High:
			return nil, fmt.Errorf("%scr %g must lie between low %g and high %g", where, a.CR, a.Low, a.High)
		}
		d := deployment{a.N, a.G}
		if withAverage[d] {
			return nil, fmt.Errorf("%sa second average for n=%d g=%d", where, a.N, a.G)
		}
		if !withBoundaries[d] {
			return nil, fmt.Errorf("%sno boundary has n=%d g=%d", where, a.N, a.G)
		}
		withAverage[d] = true
		f.Averages = append(f.Averages, a)
	}
	for _, b := range f.Boundaries {
		if !withAverage[deployment{b.N, b.G}] {
			return nil, fmt.Errorf("boundaries for n=%d g=%d have no average", b.N, b.G)
		}
	}
	return f, nil
}

func checkDeployment(n, g int) error {
	switch {
	case n < 1:
		return fmt.Errorf("n %d must be at least 1", n)
	case g < 1 || g > config.MaxNG:
		return fmt.Errorf("g %d must be from 1 to %d", g, config.MaxNG)
	}
	return nil
}

func inUnit(x float64) bool { return x >= 0 && x <= 1 }

// checkDuplicateKeys walks the JSON text and rejects an object that names a
// key twice: encoding/json would silently keep the last one, and a file
// edited by hand should not mean something other than what it says.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("not valid JSON: %v", err)
		}
		delim, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		switch delim {
		case '{':
			seen := map[string]bool{}
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return fmt.Errorf("not valid JSON: %v", err)
				}
				key, _ := tok.(string)
				if seen[key] {
					return fmt.Errorf("%skey %q appears twice", path, key)
				}
				seen[key] = true
				if err := walk(path + key + "."); err != nil {
					return err
				}
			}
		case '[':
			for i := 0; dec.More(); i++ {
				if err := walk(fmt.Sprintf("%s%d.", path, i)); err != nil {
					return err
				}
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return fmt.Errorf("not valid JSON: %v", err)
		}
		return nil
	}
	if err := walk(""); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("text after the JSON object")
	}
	return nil
}

// DeriveAverage turns one deployment's boundaries into its threshold pair.
//
// CR is their mean. LOW and HIGH are the mean minus and plus one standard
// deviation, kept within the smallest and largest boundary: below LOW most
// calibrated patterns run faster redirected, above HIGH most run faster
// direct, and in between the outcome depends on a pattern the runtime
// cannot see, so the predictor keeps its vote there. One standard deviation
// rather than the full range keeps one outlying pattern from stretching the
// band over the whole scale. A band narrower than MinBand is widened to
// MinBand around the mean, within [0, 1]. Values are rounded to 4 decimals.
func DeriveAverage(n, g int, crs []float64) (Average, error) {
	if len(crs) == 0 {
		return Average{}, fmt.Errorf("n=%d g=%d: no boundary to average", n, g)
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, c := range crs {
		if !inUnit(c) {
			return Average{}, fmt.Errorf("n=%d g=%d: boundary CR %g is outside [0, 1]", n, g, c)
		}
		lo, hi, sum = math.Min(lo, c), math.Max(hi, c), sum+c
	}
	mean := sum / float64(len(crs))
	variance := 0.0
	for _, c := range crs {
		variance += (c - mean) * (c - mean)
	}
	sd := math.Sqrt(variance / float64(len(crs)))
	low, high := math.Max(lo, mean-sd), math.Min(hi, mean+sd)
	if high-low < MinBand {
		low, high = mean-MinBand/2, mean+MinBand/2
		if low < 0 {
			low, high = 0, MinBand
		}
		if high > 1 {
			low, high = 1-MinBand, 1
		}
	}
	return Average{N: n, G: g, CR: round4(mean), Low: round4(low), High: round4(high)}, nil
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// Select returns the average of the calibrated deployment nearest to n user
// processes with g ghosts per node: the nearest ghost count first (on a tie
// the smaller), then the nearest user count by ratio (|ln n' - ln n|; on a
// tie the larger). Ghosts per node come first because they set how many
// targets funnel into each ghost, which is what makes redirection lose;
// user counts are compared by ratio because contention grows with the
// count's order of magnitude, not with its difference.
func (f *ThresholdsFile) Select(n, g int) (Average, error) {
	if len(f.Averages) == 0 {
		return Average{}, fmt.Errorf("the file calibrates no deployment")
	}
	if n < 1 || g < 0 {
		return Average{}, fmt.Errorf("no deployment with n=%d g=%d", n, g)
	}
	best := f.Averages[0]
	for _, a := range f.Averages[1:] {
		if nearer(a, best, n, g) {
			best = a
		}
	}
	return best, nil
}

// nearer says whether a is a better match for (n, g) than b.
func nearer(a, b Average, n, g int) bool {
	da, db := abs(a.G-g), abs(b.G-g)
	if da != db {
		return da < db
	}
	if a.G != b.G {
		return a.G < b.G
	}
	ra := math.Abs(math.Log(float64(a.N) / float64(n)))
	rb := math.Abs(math.Log(float64(b.N) / float64(n)))
	if ra != rb {
		return ra < rb
	}
	return a.N > b.N
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Override applies explicitly set GHOST_CR_LOW/GHOST_CR_HIGH values over
// the file's pair: a variable set in the environment wins, one left unset
// takes the file's value. A mix that violates LOW < HIGH is an error, for
// the caller to fall back on the environment and defaults alone.
func Override(file, env Thresholds, lowSet, highSet bool) (Thresholds, error) {
	t := file
	if lowSet {
		t.Low = env.Low
	}
	if highSet {
		t.High = env.High
	}
	if err := t.Validate(); err != nil {
		return file, fmt.Errorf("GHOST_CR_LOW/GHOST_CR_HIGH from the environment do not fit the file's values: %v", err)
	}
	return t, nil
}

// Choose is what GHOST_THRESHOLDS does at MPI_Init: it loads the file at
// path, selects the deployment nearest to n users with g ghosts per node,
// and applies the explicitly set variables over it (Override). It returns
// the pair and a line that says where it came from; on any error the
// caller keeps env.
func Choose(path string, n, g int, env Thresholds, lowSet, highSet bool) (Thresholds, string, error) {
	f, err := LoadThresholds(path)
	if err != nil {
		return env, "", err
	}
	a, err := f.Select(n, g)
	if err != nil {
		return env, "", fmt.Errorf("thresholds file %s: %v", path, err)
	}
	t, err := Override(a.Thresholds(), env, lowSet, highSet)
	if err != nil {
		return env, "", fmt.Errorf("thresholds file %s: %v", path, err)
	}
	line := fmt.Sprintf("GHOST_THRESHOLDS=%s: CR thresholds low %g high %g (calibrated n=%d g=%d on %s, %s)",
		path, t.Low, t.High, a.N, a.G, f.Machine.Hostname, f.Created.Format(time.RFC3339))
	if lowSet || highSet {
		line += "; GHOST_CR_LOW/GHOST_CR_HIGH from the environment win"
	}
	return t, line, nil
}

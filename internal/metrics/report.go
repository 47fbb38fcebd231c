package metrics

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// NodeRecord is one node's metrics read back from a textfile record.
type NodeRecord struct {
	Source string // the file it came from
	Node   string
	Ops    map[string][NPaths]float64 // by op: ghost, direct
	Bytes  map[string][NPaths]float64
	Syncs  map[string]float64 // by type
	// SyncCalls by call, and Internal the internal operations made on
	// their behalf, by call and kind (InternalKinds).
	SyncCalls map[string]float64
	Internal  map[string][NInternal]float64
	// Transitions by direction, and by point and direction.
	Transitions map[string]float64
	Points      map[string][NDirections]float64
	MPISeconds  float64
	CR          float64
	HasCR       bool
	Busy        map[string]float64 // busy ratio by ghost index
	Users       float64
}

// ParseTextfile reads one record written by WriteTextfile (any text
// exposition with Ghost's metrics will do). Records of several nodes in one
// input come back one per node, sorted by node.
func ParseTextfile(r io.Reader, source string) ([]NodeRecord, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	nodes := map[string]*NodeRecord{}
	node := func(m *dto.Metric) *NodeRecord {
		name := label(m, "node")
		if nodes[name] == nil {
			nodes[name] = &NodeRecord{Source: source, Node: name, Ops: map[string][NPaths]float64{},
				Bytes: map[string][NPaths]float64{}, Syncs: map[string]float64{},
				Transitions: map[string]float64{}, Points: map[string][NDirections]float64{}, Busy: map[string]float64{},
				SyncCalls: map[string]float64{}, Internal: map[string][NInternal]float64{}}
		}
		return nodes[name]
	}
	for name, mf := range families {
		for _, m := range mf.GetMetric() {
			v := value(m)
			switch name {
			case "ghost_rma_operations_total", "ghost_rma_bytes_total":
				n := node(m)
				table := n.Ops
				if name == "ghost_rma_bytes_total" {
					table = n.Bytes
				}
				p := indexOf(Paths, label(m, "path"))
				if p < 0 {
					return nil, fmt.Errorf("%s: %s: unknown path %q", source, name, label(m, "path"))
				}
				row := table[label(m, "op")]
				row[p] += v
				table[label(m, "op")] = row
			case "ghost_epochs_total":
				node(m).Syncs[label(m, "type")] += v
			case "ghost_sync_calls_total":
				node(m).SyncCalls[label(m, "call")] += v
			case "ghost_sync_internal_operations_total":
				n := node(m)
				k := indexOf(InternalKinds, label(m, "kind"))
				if k < 0 {
					return nil, fmt.Errorf("%s: %s: unknown kind %q", source, name, label(m, "kind"))
				}
				row := n.Internal[label(m, "call")]
				row[k] += v
				n.Internal[label(m, "call")] = row
			case "ghost_adaptation_transitions_total":
				n := node(m)
				dir := indexOf(Directions, label(m, "direction"))
				if dir < 0 {
					return nil, fmt.Errorf("%s: %s: unknown direction %q", source, name, label(m, "direction"))
				}
				n.Transitions[Directions[dir]] += v
				// Records written before the point label existed have none.
				if point := label(m, "point"); point != "" {
					row := n.Points[point]
					row[dir] += v
					n.Points[point] = row
				}
			case "ghost_mpi_time_seconds_total":
				node(m).MPISeconds = v
			case "ghost_communication_ratio":
				n := node(m)
				n.CR, n.HasCR = v, true
			case "ghost_busy_ratio":
				node(m).Busy[label(m, "ghost")] = v
			case "ghost_user_processes":
				node(m).Users = v
			}
		}
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%s: no Ghost metrics in it", source)
	}
	var out []NodeRecord
	for _, n := range nodes {
		out = append(out, *n)
	}
	sort.Slice(out, func(i, j int) bool { return lessNumeric(out[i].Node, out[j].Node) })
	return out, nil
}

// ReadTextfiles parses every file of paths.
func ReadTextfiles(paths []string) ([]NodeRecord, error) {
	var all []NodeRecord
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		recs, err := ParseTextfile(f, p)
		f.Close()
		if err != nil {
			return nil, err
		}
		all = append(all, recs...)
	}
	return all, nil
}

// WriteTable prints a per-node summary: operations and bytes by path,
// synchronizations, adaptation transitions, time in MPI and CR, and the
// ghosts' busy fraction; then the operations by op and path; then the
// synchronization calls made and the internal operations they cost.
func WriteTable(w io.Writer, recs []NodeRecord) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// One column per path, for operations and for bytes.
	pathCols := func(prefix string) string {
		var b strings.Builder
		for _, p := range Paths {
			b.WriteString(prefix + p + "\t")
		}
		return b.String()
	}
	fmt.Fprintln(tw, "node\tusers\t"+pathCols("ops ")+pathCols("bytes ")+"epochs\ton->off\toff->on\tMPI s\tCR\tghost busy\t")
	for _, r := range recs {
		var ops, bytes [NPaths]float64
		for _, row := range r.Ops {
			for p := range NPaths {
				ops[p] += row[p]
			}
		}
		for _, row := range r.Bytes {
			for p := range NPaths {
				bytes[p] += row[p]
			}
		}
		var syncs float64
		for _, v := range r.Syncs {
			syncs += v
		}
		cr := "-"
		if r.HasCR {
			cr = fmt.Sprintf("%.2f", r.CR)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%s%s%.0f\t%.0f\t%.0f\t%.3f\t%s\t%s\t\n", r.Node, r.Users, countCols(ops), byteCols(bytes),
			syncs, r.Transitions["on_to_off"], r.Transitions["off_to_on"], r.MPISeconds, cr, busyList(r.Busy))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "node\top\t"+pathCols("")+pathCols("bytes "))
	for _, r := range recs {
		for _, op := range Ops {
			row, brow := r.Ops[op], r.Bytes[op]
			total := 0.0
			for _, v := range row {
				total += v
			}
			if total == 0 {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s%s\n", r.Node, op, countCols(row), byteCols(brow))
		}
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "node\tswitched at\ton->off\toff->on\t")
	for _, r := range recs {
		for _, point := range Points {
			if row := r.Points[point]; row[0]+row[1] > 0 {
				fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\t\n", r.Node, point, row[0], row[1])
			}
		}
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "node\tcall\tcalls\t"+strings.Join(InternalKinds, "\t")+"\tper call\t")
	for _, r := range recs {
		for _, call := range SyncCalls {
			calls, row := r.SyncCalls[call], r.Internal[call]
			if calls == 0 {
				continue
			}
			var per []string
			for _, v := range row {
				per = append(per, fmt.Sprintf("%.2f", v/calls))
			}
			fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s%s\t\n", r.Node, call, calls, countColsN(row[:]), strings.Join(per, " / "))
		}
	}
	return tw.Flush()
}

// countCols and byteCols write one tab-terminated cell per path.
func countCols(v [NPaths]float64) string { return countColsN(v[:]) }

// countColsN writes one tab-terminated cell per count.
func countColsN(v []float64) string {
	var b strings.Builder
	for _, x := range v {
		fmt.Fprintf(&b, "%.0f\t", x)
	}
	return b.String()
}

func byteCols(v [NPaths]float64) string {
	var b strings.Builder
	for _, x := range v {
		b.WriteString(humanBytes(x) + "\t")
	}
	return b.String()
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// lessNumeric orders node labels as numbers when both are.
func lessNumeric(a, b string) bool {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return x < y
	}
	return a < b
}

func busyList(busy map[string]float64) string {
	if len(busy) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(busy))
	for k := range busy {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return lessNumeric(keys[i], keys[j]) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%.0f%%", 100*busy[k])
	}
	return strings.Join(parts, " ")
}

func humanBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

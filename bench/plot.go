package main

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Chart is one panel of the results PNG, drawn from one suite's medians.
type Chart interface {
	// plot returns the panel, or nil when the suite has nothing to show in
	// it (its runs failed, or a smoke run skipped those metrics).
	plot(s SuiteResult) (*plot.Plot, error)
}

// medians indexes a suite's medians by configuration and metric.
func medians(s SuiteResult) map[[2]string]float64 {
	m := map[[2]string]float64{}
	for _, st := range s.Stats {
		if st.N > 0 {
			m[[2]string{st.Config, st.Metric}] = st.Median
		}
	}
	return m
}

// metricsOf lists the suite's metrics in order of first appearance, those
// that match and have the unit.
func metricsOf(s SuiteResult, unit string, match func(string) bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, st := range s.Stats {
		if seen[st.Metric] || (unit != "" && st.Unit != unit) || (match != nil && !match(st.Metric)) {
			continue
		}
		seen[st.Metric] = true
		out = append(out, st.Metric)
	}
	return out
}

func suffix(sfx string) func(string) bool {
	return func(m string) bool { return strings.HasSuffix(m, sfx) }
}

func prefixSuffix(pfx, sfx string) func(string) bool {
	return func(m string) bool { return strings.HasPrefix(m, pfx) && strings.HasSuffix(m, sfx) }
}

// categoryChart puts metrics side by side on the X axis and gives each
// configuration a series: grouped bars on a linear axis, or markers on a log
// axis (bars have no base on a log axis).
type categoryChart struct {
	Title string
	Unit  string
	Log   bool
	Match func(metric string) bool // nil: every metric with the unit
}

func (c categoryChart) plot(s SuiteResult) (*plot.Plot, error) {
	metrics := metricsOf(s, c.Unit, c.Match)
	med := medians(s)
	if len(metrics) == 0 || (c.Log && !anyPositive(med, metrics)) {
		return nil, nil
	}
	p := newPlot(c.Title, "", c.Unit)
	p.NominalX(metrics...)
	if len(metrics) > 3 {
		p.X.Tick.Label.Rotation = math.Pi / 8
		p.X.Tick.Label.XAlign = draw.XRight
	}
	if c.Log {
		addLogSeries(p, s, metrics, med)
		setLogY(p)
	} else if err := addBars(p, s, metrics, med); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = -0.5, float64(len(metrics))-0.5
	return p, nil
}

// groupWidth is the room for one category's bars, in points: most of a
// panel's data area divided among the categories.
const groupWidth = 340

func addBars(p *plot.Plot, s SuiteResult, metrics []string, med map[[2]string]float64) error {
	n := len(s.Configs)
	width := vg.Points(math.Min(20, groupWidth/float64(n*len(metrics))))
	for i, cfg := range s.Configs {
		values := make(plotter.Values, len(metrics))
		for j, m := range metrics {
			values[j] = med[[2]string{cfg.Name, m}] // missing: no bar
		}
		bars, err := plotter.NewBarChart(values, width)
		if err != nil {
			return err
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(i)
		bars.Offset = width * vg.Length(float64(i)-float64(n-1)/2)
		p.Add(bars)
		p.Legend.Add(cfg.Name, bars)
	}
	return nil
}

func addLogSeries(p *plot.Plot, s SuiteResult, metrics []string, med map[[2]string]float64) {
	n := len(s.Configs)
	for i, cfg := range s.Configs {
		var xys plotter.XYs
		for j, m := range metrics {
			if v, ok := med[[2]string{cfg.Name, m}]; ok && v > 0 {
				// Spread the configurations a little so that equal values
				// do not hide each other.
				xys = append(xys, plotter.XY{X: float64(j) + 0.08*(float64(i)-float64(n-1)/2), Y: v})
			}
		}
		addMarkers(p, i, cfg.Name, xys)
	}
}

// sizeChart plots latency against message size for one operation, one line
// per configuration, log-log: the metrics are "<Op>/<bytes>B".
type sizeChart struct {
	Op string
}

func (c sizeChart) plot(s SuiteResult) (*plot.Plot, error) {
	med := medians(s)
	var sizes []float64
	var metrics []string
	for _, m := range metricsOf(s, "us", nil) {
		if b, ok := parseSizeMetric(m, c.Op); ok {
			sizes = append(sizes, b)
			metrics = append(metrics, m)
		}
	}
	if !anyPositive(med, metrics) {
		return nil, nil
	}
	sort.Float64s(sizes)
	p := newPlot(fmt.Sprintf("%s: %s latency by size", s.Name, c.Op), "bytes", "us per op+flush")
	for i, cfg := range s.Configs {
		var xys plotter.XYs
		for _, b := range sizes {
			if v, ok := med[[2]string{cfg.Name, sizeMetric(c.Op, b)}]; ok && v > 0 {
				xys = append(xys, plotter.XY{X: b, Y: v})
			}
		}
		addSeries(p, i, cfg.Name, xys)
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks(sizes)
	setLogY(p)
	return p, nil
}

func sizeMetric(op string, bytes float64) string { return fmt.Sprintf("%s/%.0fB", op, bytes) }

// parseSizeMetric reads "<op>/<bytes>B" and returns the bytes.
func parseSizeMetric(metric, op string) (float64, bool) {
	rest, ok := strings.CutPrefix(metric, op+"/")
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutSuffix(rest, "B")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 63)
	if err != nil || n == 0 {
		return 0, false
	}
	return float64(n), true
}

// sizeLabel writes a byte count the way OSU tables do: 8, 4K, 1M.
func sizeLabel(b float64) string {
	switch n := int64(b); {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	default:
		return strconv.FormatInt(n, 10)
	}
}

func sizeTicks(sizes []float64) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(sizes))
	for i, b := range sizes {
		ticks[i] = plot.Tick{Value: b, Label: sizeLabel(b)}
	}
	return ticks
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	return p
}

// addSeries draws one configuration as markers joined by a line, in the
// configuration's colour and shape; an empty series is left out.
func addSeries(p *plot.Plot, i int, name string, xys plotter.XYs) {
	if len(xys) == 0 {
		return
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil { // only for NaN or Inf, which medians never are
		return
	}
	line.Color = plotutil.Color(i)
	points.Color = plotutil.Color(i)
	points.Shape = plotutil.Shape(i)
	p.Add(line, points)
	p.Legend.Add(name, line, points)
}

// addMarkers draws one configuration as markers only: categories have no
// order that a line between them would mean.
func addMarkers(p *plot.Plot, i int, name string, xys plotter.XYs) {
	if len(xys) == 0 {
		return
	}
	points, err := plotter.NewScatter(xys)
	if err != nil {
		return
	}
	points.Color = plotutil.Color(i)
	points.Shape = plotutil.Shape(i)
	points.Radius = vg.Points(3.5)
	p.Add(points)
	p.Legend.Add(name, points)
}

// setLogY switches the Y axis to a log scale. Only positive values were
// added, and the axis range comes from them.
func setLogY(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
}

// anyPositive reports whether some configuration has a positive median for
// one of metrics: a log axis needs at least one.
func anyPositive(med map[[2]string]float64, metrics []string) bool {
	want := map[string]bool{}
	for _, m := range metrics {
		want[m] = true
	}
	for k, v := range med {
		if want[k[1]] && v > 0 {
			return true
		}
	}
	return false
}

// Panel geometry of the PNG: two columns, as many rows as needed.
const (
	pngCols     = 2
	panelWidth  = 7 * vg.Inch
	panelHeight = 4.5 * vg.Inch
)

// renderPNG draws every suite's charts into one image, or returns nil when
// there is nothing to draw. gonum/plot panics on some degenerate inputs, so
// a panic becomes an error: the JSON and markdown are already written.
func renderPNG(r Report) (png []byte, err error) {
	defer func() {
		if e := recover(); e != nil {
			png, err = nil, fmt.Errorf("rendering failed: %v", e)
		}
	}()
	var panels []*plot.Plot
	for _, s := range r.Suites {
		def, ok := suiteByName(s.Name)
		if !ok {
			continue
		}
		for _, c := range def.Charts {
			p, err := c.plot(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", s.Name, err)
			}
			if p != nil {
				panels = append(panels, p)
			}
		}
	}
	if len(panels) == 0 {
		return nil, nil
	}
	return drawGrid(panels)
}

func drawGrid(panels []*plot.Plot) ([]byte, error) {
	rows := (len(panels) + pngCols - 1) / pngCols
	grid := make([][]*plot.Plot, rows)
	for j := range grid {
		grid[j] = make([]*plot.Plot, pngCols)
		for i := range grid[j] {
			if k := j*pngCols + i; k < len(panels) {
				grid[j][i] = panels[k]
			}
		}
	}
	img := vgimg.New(panelWidth*pngCols, panelHeight*vg.Length(rows))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: pngCols, PadX: vg.Inch / 4, PadY: vg.Inch / 4,
		PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8, PadLeft: vg.Inch / 8, PadRight: vg.Inch / 8}
	canvases := plot.Align(grid, tiles, dc)
	for j := range grid {
		for i, p := range grid[j] {
			if p != nil {
				p.Draw(canvases[j][i])
			}
		}
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

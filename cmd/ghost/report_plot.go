package main

import (
	"fmt"
	"os"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ghost-mpi/ghost/profile"
)

// plotTrace draws two panels sharing the time axis: the CR of every rank
// per interval, and below it the agreed state of every window (1 on,
// 0 off), one step line per window.
func plotTrace(records []profile.Record, title, out string) error {
	if len(records) == 0 {
		return fmt.Errorf("%s: no records to plot", title)
	}
	zero := profile.Start(records)

	cr := plot.New()
	cr.Title.Text = "communication ratio per interval: " + title
	cr.Y.Label.Text = "CR"
	cr.Y.Min, cr.Y.Max = 0, 1
	for i, rank := range rankOrder(records) {
		var pts plotter.XYs
		for _, r := range records {
			if r.Rank == rank {
				pts = append(pts, plotter.XY{X: r.Time - zero, Y: r.CR})
			}
		}
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		line, dots, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		dots.Color = plotutil.Color(i)
		cr.Add(line, dots)
		cr.Legend.Add(fmt.Sprintf("rank %d", rank), line)
	}
	cr.Legend.Top = true

	st := plot.New()
	st.Title.Text = "agreed redirection state per window (1 on, 0 off)"
	st.X.Label.Text = "seconds since the first interval began"
	st.Y.Min, st.Y.Max = -0.1, 1.1
	for i, tl := range profile.Timelines(records) {
		var pts plotter.XYs
		for _, p := range tl.Phases {
			y := 0.0
			if p.State == profile.StateOn {
				y = 1
			}
			// Small offsets keep windows with equal states apart.
			y += 0.03 * float64(i%4)
			pts = append(pts, plotter.XY{X: p.Start, Y: y}, plotter.XY{X: p.End, Y: y})
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		line.StepStyle = plotter.PreStep
		st.Add(line)
		st.Legend.Add(fmt.Sprintf("window %d", tl.Window), line)
	}
	st.Add(plotter.NewGrid())
	st.X.Min = cr.X.Min
	st.X.Max = cr.X.Max

	img := vgimg.New(10*vg.Inch, 7*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Centimeter / 2}
	canvases := plot.Align([][]*plot.Plot{{cr}, {st}}, tiles, dc)
	cr.Draw(canvases[0][0])
	st.Draw(canvases[1][0])
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

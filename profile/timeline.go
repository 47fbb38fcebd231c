package profile

import (
	"sort"
)

// Phase is a stretch of time over which a window kept one agreed state, as
// the records of all ranks show it.
type Phase struct {
	Window     int64
	State      State
	Start, End float64 // seconds since the first record's interval began
	Records    int     // interval records of all ranks in the phase
	MeanCR     float64 // over those records
	VotesOn    int     // records whose vote was on
	OpsGhost   uint64  // operations of those intervals, all windows
	OpsDirect  uint64
}

// Timeline is the phases of one window, in time order.
type Timeline struct {
	Window int64
	Phases []Phase
}

// Start is when the first recorded interval began (seconds since the Unix
// epoch), the zero of every Phase time.
func Start(records []Record) float64 {
	if len(records) == 0 {
		return 0
	}
	start := records[0].Time - records[0].Interval
	for _, r := range records[1:] {
		start = min(start, r.Time-r.Interval)
	}
	return start
}

// Timelines splits the records of every window into phases: a new phase
// begins at the first record, in time order over all ranks, that shows the
// window in another state. The agreed state changes on every rank at the
// same agreement point, so the ranks' records interleave cleanly around it.
func Timelines(records []Record) []Timeline {
	sorted := append([]Record(nil), records...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Time < sorted[j].Time })
	zero := Start(sorted)

	byWindow := map[int64]*Timeline{}
	var order []int64
	for _, r := range sorted {
		for _, ws := range r.Windows {
			tl, ok := byWindow[ws.ID]
			if !ok {
				tl = &Timeline{Window: ws.ID}
				byWindow[ws.ID] = tl
				order = append(order, ws.ID)
			}
			t := r.Time - zero
			if n := len(tl.Phases); n == 0 || tl.Phases[n-1].State != ws.State {
				start := t - r.Interval
				if n > 0 {
					start = tl.Phases[n-1].End
				}
				tl.Phases = append(tl.Phases, Phase{Window: ws.ID, State: ws.State, Start: max(start, 0)})
			}
			p := &tl.Phases[len(tl.Phases)-1]
			p.End = t
			p.MeanCR += (r.CR - p.MeanCR) / float64(p.Records+1)
			p.Records++
			if r.Vote == StateOn {
				p.VotesOn++
			}
			p.OpsGhost += r.OpsGhost
			p.OpsDirect += r.OpsDirect
		}
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	out := make([]Timeline, 0, len(order))
	for _, id := range order {
		out = append(out, *byWindow[id])
	}
	return out
}

// RankSummary totals one rank's records.
type RankSummary struct {
	Rank      int
	Intervals int
	Seconds   float64 // recorded time
	MPI       float64 // of which inside MPI
	Wait      float64 // of which waiting in barriers and stalled
	Stall     float64 // of which stalled on targets outside MPI (not oversubscribed)
	VotesOn   int
	OpsGhost  uint64
	OpsDirect uint64
}

// CR is the rank's communication ratio over the whole trace as the
// predictor sees it: the time waiting for other ranks left out of both
// terms, the time stalled on targets outside MPI left out of the MPI time.
func (s RankSummary) CR() float64 {
	span := s.Seconds - (s.Wait - s.Stall)
	if span <= 0 {
		return 0
	}
	return (s.MPI - s.Wait) / span
}

// Ranks totals the records per rank, in rank order.
func Ranks(records []Record) []RankSummary {
	by := map[int]*RankSummary{}
	for _, r := range records {
		s, ok := by[r.Rank]
		if !ok {
			s = &RankSummary{Rank: r.Rank}
			by[r.Rank] = s
		}
		s.Intervals++
		s.Seconds += r.Interval
		s.MPI += r.MPI
		s.Wait += r.Wait
		if !r.Over { // else the stalls counted as communication
			s.Stall += r.Stall
		}
		if r.Vote == StateOn {
			s.VotesOn++
		}
		s.OpsGhost += r.OpsGhost
		s.OpsDirect += r.OpsDirect
	}
	out := make([]RankSummary, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rank < out[j].Rank })
	return out
}

// SwitchEvent is one agreed change of a window's state: the switches of
// the ranks that made it at one agreement point.
type SwitchEvent struct {
	Window      int64
	To          State
	Point       Point
	Ranks       int
	First, Last float64 // seconds since Start
}

// Switches groups the ranks' switches into events, in time order: a
// rank's switch joins the open event of its window when it goes to the
// same state at the same kind of point and that rank is not in it yet;
// otherwise it opens a new event. Every rank of a window switches at the
// same agreement, so an event normally holds each rank once.
func Switches(records []Record) []SwitchEvent {
	type rankSwitch struct {
		rank int
		s    Switch
	}
	var all []rankSwitch
	for _, r := range records {
		for _, s := range r.Switches {
			all = append(all, rankSwitch{r.Rank, s})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].s.Time < all[j].s.Time })
	zero := Start(records)
	var events []SwitchEvent
	open := map[int64]int{}           // window -> index of its open event
	members := map[int]map[int]bool{} // event index -> ranks in it
	for _, x := range all {
		t := x.s.Time - zero
		i, ok := open[x.s.Window]
		if ok {
			e := &events[i]
			ok = e.To == x.s.To && e.Point == x.s.Point && !members[i][x.rank]
		}
		if !ok {
			events = append(events, SwitchEvent{Window: x.s.Window, To: x.s.To, Point: x.s.Point, First: t})
			i = len(events) - 1
			open[x.s.Window] = i
			members[i] = map[int]bool{}
		}
		events[i].Ranks++
		events[i].Last = t
		members[i][x.rank] = true
	}
	return events
}

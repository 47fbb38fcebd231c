package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Sample is one measurement. Benchmark programs print it as a JSON line of
// type "sample" with metric, unit, rank, rep, value and optionally iters
// (calls timed together); the driver adds the configuration and the round it
// ran in.
type Sample struct {
	Config string  `json:"config"`
	Round  int     `json:"round"`
	Metric string  `json:"metric"`
	Unit   string  `json:"unit"`
	Rank   int     `json:"rank"`
	Rep    int     `json:"rep"`
	Iters  int64   `json:"iters,omitempty"`
	Value  float64 `json:"value"`
}

// programOutput is what one run of a benchmark program reported.
type programOutput struct {
	// Meta is the program's "meta" line, kept whole so that new programs can
	// report new parameters without driver changes.
	Meta    map[string]any
	Samples []Sample
}

// parseOutput reads a program's stdout: one JSON object per line, "meta"
// once and "sample" many times. Any other line is an error, because a stray
// print on stdout usually means the program or the launcher misbehaved.
func parseOutput(r io.Reader) (programOutput, error) {
	var out programOutput
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if err := out.add(text); err != nil {
			return out, fmt.Errorf("line %d: %v: %.120s", line, err, text)
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	if out.Meta == nil {
		return out, fmt.Errorf("no meta line")
	}
	if len(out.Samples) == 0 {
		return out, fmt.Errorf("no samples")
	}
	return out, nil
}

func (o *programOutput) add(line []byte) error {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return fmt.Errorf("not a JSON object")
	}
	switch head.Type {
	case "meta":
		if o.Meta != nil {
			return fmt.Errorf("second meta line")
		}
		return json.Unmarshal(line, &o.Meta)
	case "sample":
		var s Sample
		if err := json.Unmarshal(line, &s); err != nil {
			return err
		}
		if s.Metric == "" || s.Unit == "" {
			return fmt.Errorf("sample without metric or unit")
		}
		o.Samples = append(o.Samples, s)
		return nil
	}
	return fmt.Errorf("unknown type %q", head.Type)
}

// worldSize is the MPI_COMM_WORLD size the program saw, or -1 when its meta
// line does not say.
func (o programOutput) worldSize() int {
	v, ok := o.Meta["world_size"].(float64)
	if !ok {
		return -1
	}
	return int(v)
}

// wrongValues is the count of wrong values the program reported in its meta
// line, and whether it reported one (programs that move no data do not).
func (o programOutput) wrongValues() (int64, bool) {
	v, ok := o.Meta["wrong_values"].(float64)
	if !ok {
		return 0, false
	}
	return int64(v), true
}

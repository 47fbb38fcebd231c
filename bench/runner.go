package main

import (
	"bytes"
	"fmt"
	"github.com/ghost-mpi/ghost/internal/mpiprog"
	"io"
	"slices"
	"time"
)

// Run records one execution of a program under one configuration.
type Run struct {
	Config  string         `json:"config"`
	Round   int            `json:"round"`
	Env     []string       `json:"env,omitempty"`
	Command []string       `json:"command"`
	Seconds float64        `json:"seconds"`
	Meta    map[string]any `json:"meta,omitempty"`
	Error   string         `json:"error,omitempty"`
	// NotRun says why a configuration does not apply to a workload (an
	// application not built for its MPI, a library not built yet): no
	// failure, and no sample.
	NotRun string `json:"not_run,omitempty"`
	// Checked says the program checked the values it moved; WrongValues is
	// how many it found wrong. A wrong run keeps its samples, so that a fast
	// but wrong configuration shows as both.
	Checked     bool  `json:"checked"`
	WrongValues int64 `json:"wrong_values"`
}

// runOnce runs prog under c, reads its output with parse, and checks that
// the application saw exactly l.Users ranks: a benchmark that silently
// counted a ghost would compare different jobs. The configuration's
// arguments come before the suite's: options before operands, and a mode
// word (multiphase's static|user) before the numbers that follow it.
func runOnce(c Config, l Launch, prog []string, env []string, round int, timeout time.Duration,
	parse func(io.Reader) (programOutput, error)) (Run, []Sample) {
	prog = slices.Concat(prog[:1], c.ProgArgs, prog[1:])
	run := Run{Config: c.Name, Round: round, Env: c.Env, Command: c.Command(l, prog)}
	start := time.Now()
	stdout, err := mpiprog.Run(run.Command, append(slices.Clone(env), c.Env...), timeout)
	run.Seconds = time.Since(start).Seconds()
	if err != nil {
		run.Error = err.Error()
		return run, nil
	}
	out, err := parse(bytes.NewReader(stdout))
	run.Meta = out.Meta
	run.WrongValues, run.Checked = out.wrongValues()
	if err == nil && out.worldSize() != l.Users {
		err = fmt.Errorf("program saw MPI_COMM_WORLD of size %d, want %d", out.worldSize(), l.Users)
	}
	if err != nil {
		run.Error = "bad output: " + err.Error()
		return run, nil
	}
	for i := range out.Samples {
		out.Samples[i].Config = c.Name
		out.Samples[i].Round = round
	}
	return run, out.Samples
}

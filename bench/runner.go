package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// buildProgram compiles a benchmark program with mpicc into dir and returns
// the executable's path. -O2 matches how applications are usually built; the
// calls measured live in other shared objects, so the optimizer cannot
// remove them.
func buildProgram(mpicc, src, dir string) (string, error) {
	exe := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)))
	out, err := exec.Command(mpicc, "-O2", "-Wall", "-o", exe, src).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v\n%s", mpicc, src, err, out)
	}
	return exe, nil
}

// runJob runs argv with extra environment variables and returns its stdout.
// The job runs in its own process group, and a timeout kills the whole group:
// killing mpiexec alone would leave hydra's proxies and the ranks spinning
// on a 2-core box that other people share.
func runJob(argv, env []string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("timed out after %v", timeout)
	}
	if err != nil {
		return stdout.Bytes(), fmt.Errorf("%v; stderr: %s", err, tail(stderr.String(), 2000))
	}
	return stdout.Bytes(), nil
}

// tail keeps the last n bytes of s, where the reason for a failure usually is.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// Run records one execution of a program under one configuration.
type Run struct {
	Config  string         `json:"config"`
	Round   int            `json:"round"`
	Env     []string       `json:"env,omitempty"`
	Command []string       `json:"command"`
	Seconds float64        `json:"seconds"`
	Meta    map[string]any `json:"meta,omitempty"`
	Error   string         `json:"error,omitempty"`
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
	stdout, err := runJob(run.Command, append(slices.Clone(env), c.Env...), timeout)
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

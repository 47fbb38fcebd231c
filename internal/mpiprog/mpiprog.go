// Package mpiprog builds small MPI programs with mpicc and runs MPI jobs
// under a timeout that kills the whole process group. The benchmark driver
// and the CLI's calibrate and doctor commands share it.
package mpiprog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Build compiles the C source file src with mpicc into dir and returns the
// executable's path. -O2 matches how applications are usually built; the
// MPI calls live in other shared objects, so the optimizer cannot remove
// them.
func Build(mpicc, src, dir string) (string, error) {
	exe := filepath.Join(dir, ExeName(src))
	out, err := exec.Command(mpicc, "-O2", "-Wall", "-o", exe, src).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v\n%s", mpicc, src, err, out)
	}
	return exe, nil
}

// ExeName is the file name Build gives the executable of src: the source's
// name without its extension.
func ExeName(src string) string {
	return strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
}

// BuildSource writes source (for example one embedded with go:embed) to
// dir/name and compiles it like Build.
func BuildSource(mpicc, name string, source []byte, dir string) (string, error) {
	src := filepath.Join(dir, name)
	if err := os.WriteFile(src, source, 0o644); err != nil {
		return "", err
	}
	return Build(mpicc, src, dir)
}

// Run runs argv with extra environment variables and returns its stdout.
// The job runs in its own process group, and a timeout kills the whole
// group: killing mpiexec alone would leave hydra's proxies and the ranks
// spinning on cores that other people share.
func Run(argv, env []string, timeout time.Duration) ([]byte, error) {
	return RunIn("", argv, env, timeout)
}

// RunIn is Run in the working directory dir ("": the current one).
func RunIn(dir string, argv, env []string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
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
		return stdout.Bytes(), fmt.Errorf("%v; stderr: %s", err, Tail(stderr.String(), 2000))
	}
	return stdout.Bytes(), nil
}

// Tail keeps the last n bytes of s, where the reason for a failure usually
// is.
func Tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

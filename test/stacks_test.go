package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hungStacks describes a job that ran past its timeout before it is
// killed: the command line and the threads' stacks (gdb) of every process
// below root, so that a hang seen once in CI leaves more than its
// timeout behind. Without gdb it says so and returns at once.
func hungStacks(root int) string {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		return "(no gdb: no stacks)\n"
	}
	var b strings.Builder
	// gdb takes seconds per process: a bound keeps a hang of many
	// processes from doubling the job's time.
	deadline := time.Now().Add(45 * time.Second)
	pids := descendants(root)
	for i, pid := range pids {
		if time.Now().After(deadline) {
			fmt.Fprintf(&b, "(the stacks of %d more processes skipped)\n", len(pids)-i)
			break
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		fmt.Fprintf(&b, "=== pid %d: %s\n", pid, strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, gdb, "-p", strconv.Itoa(pid), "-batch", "-nx",
			"-ex", "set pagination off", "-ex", "thread apply all bt 16").CombinedOutput()
		cancel()
		for _, line := range strings.Split(string(out), "\n") {
			// Only the frames and thread headers: gdb's notes on symbols
			// and attaching are noise.
			if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "Thread ") {
				b.WriteString(line + "\n")
			}
		}
		if err != nil {
			fmt.Fprintf(&b, "(gdb: %v)\n", err)
		}
	}
	return b.String()
}

// descendants lists the processes below root (root included), parents
// first, from /proc.
func descendants(root int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name, in parentheses, may hold spaces: the fields
		// after its closing parenthesis are state, then the parent's pid.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(fields[1]); err == nil {
			children[ppid] = append(children[ppid], pid)
		}
	}
	list := []int{root}
	for i := 0; i < len(list); i++ {
		list = append(list, children[list[i]]...)
	}
	return list
}

// A process that is asleep: its stack is printed, frames and all.
func TestHungStacksPrintsFrames(t *testing.T) {
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Fatalf("gdb missing: run `make deps`")
	}
	cmd := exec.Command("sh", "-c", "sleep 30; true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	time.Sleep(200 * time.Millisecond) // the shell has forked its sleep
	got := hungStacks(cmd.Process.Pid)
	for _, want := range []string{fmt.Sprintf("=== pid %d: sh -c sleep 30; true", cmd.Process.Pid), ": sleep 30", "#0 "} {
		if !strings.Contains(got, want) {
			t.Errorf("stacks lack %q:\n%s", want, got)
		}
	}
}

package mpiprog

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestTail(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"  padded  ", 10, "padded"},
		{"0123456789abc", 3, "…abc"},
	} {
		if got := Tail(c.in, c.n); got != c.want {
			t.Errorf("Tail(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestRunKillsGroupOnTimeout(t *testing.T) {
	start := time.Now()
	_, err := Run([]string{"sh", "-c", "sleep 30 & sleep 30"}, nil, 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("Run: got %v, want a timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Run took %v after a 200ms timeout", d)
	}
}

func TestBuildReportsCompilerErrors(t *testing.T) {
	if _, err := exec.LookPath("mpicc"); err != nil {
		t.Skip("mpicc not installed")
	}
	_, err := BuildSource("mpicc", "broken.c", []byte("int main(void) { return undefined_name; }\n"), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "broken.c") {
		t.Fatalf("BuildSource of a broken program: got %v, want an error naming the file", err)
	}
}

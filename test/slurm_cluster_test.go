package test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A real Slurm cluster in a scratch directory: one munged, one slurmctld
// and two slurmd daemons that play nodes n1 and n2 on this one host. Each
// fake node is its own shared-memory domain for MPICH, so a job on both
// has two nodes as far as Ghost can tell. Everything (key, sockets, state,
// spool, logs, ports) is private to the test, and the test stops exactly
// the daemons it started, by pid.

// slurmBinaries are the programs the cluster needs (Debian packages munge,
// slurmctld, slurmd and slurm-client).
var slurmBinaries = []string{"munged", "slurmctld", "slurmd", "srun", "salloc", "sbatch", "sinfo"}

// slurmCluster is a running test cluster.
type slurmCluster struct {
	dir  string
	conf string
	env  []string // SLURM_CONF, for every client command
	logs []string // daemon logs, shown when something fails
}

// needSlurm skips the test, with what is missing, where the cluster cannot
// run: slurmd must be root to start jobs as their users. Under CI the
// packages are installed by .ci/run, so missing ones are a failure there.
func needSlurm(t *testing.T) {
	t.Helper()
	needMPI(t)
	var missing []string
	for _, b := range slurmBinaries {
		if _, err := exec.LookPath(b); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("Slurm test skipped: %s not found; install slurmctld slurmd slurm-client munge (make deps does)",
			strings.Join(missing, ", "))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if os.Geteuid() != 0 {
		t.Skip("Slurm test skipped: slurmd must run as root to start jobs")
	}
}

// startSlurm brings the cluster up and registers its shutdown.
func startSlurm(t *testing.T) *slurmCluster {
	t.Helper()
	dir := t.TempDir()
	c := &slurmCluster{dir: dir, conf: filepath.Join(dir, "slurm.conf")}
	c.env = []string{"SLURM_CONF=" + c.conf}
	for _, d := range []string{"munge", "state", "spool", "log"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// munged refuses a key others can read; its socket directory must be
	// searchable by clients.
	mungeDir := filepath.Join(dir, "munge")
	key := make([]byte, 1024)
	if f, err := os.Open("/dev/urandom"); err == nil {
		_, err = f.Read(key)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	keyFile := filepath.Join(mungeDir, "munge.key")
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o711)
	os.Chmod(mungeDir, 0o711)
	socket := filepath.Join(mungeDir, "munge.sock")

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".") // Slurm compares short names
	ctldPort, n1Port, n2Port := freePort(t), freePort(t), freePort(t)
	for n1Port == ctldPort {
		n1Port = freePort(t)
	}
	for n2Port == ctldPort || n2Port == n1Port {
		n2Port = freePort(t)
	}
	// config_overrides lets each fake node claim 4 CPUs whatever the host
	// has; select/cons_tres with CR_CPU hands out single CPUs, so two jobs'
	// tasks are counted the way a real cluster counts them.
	conf := fmt.Sprintf(`ClusterName=ghosttest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[3]s
CredType=cred/munge
StateSaveLocation=%[4]s/state
SlurmdSpoolDir=%[4]s/spool/%%n
SlurmctldPidFile=%[4]s/slurmctld.pid
SlurmdPidFile=%[4]s/slurmd-%%n.pid
SlurmctldLogFile=%[4]s/log/slurmctld.log
SlurmdLogFile=%[4]s/log/slurmd-%%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=pmi2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
NodeName=n1 NodeHostname=%[1]s NodeAddr=127.0.0.1 Port=%[5]d CPUs=4 State=UNKNOWN
NodeName=n2 NodeHostname=%[1]s NodeAddr=127.0.0.1 Port=%[6]d CPUs=4 State=UNKNOWN
PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=INFINITE State=UP
`, host, ctldPort, socket, dir, n1Port, n2Port)
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}

	// Daemons stop in the reverse order of their start.
	c.daemon(t, "munged", "munged", "-F", "--force", "--key-file="+keyFile, "--socket="+socket,
		"--pid-file="+filepath.Join(mungeDir, "munged.pid"), "--log-file="+filepath.Join(dir, "log", "munged.log"),
		"--seed-file="+filepath.Join(mungeDir, "munged.seed"))
	c.waitFor(t, "munged's socket", 10*time.Second, func() error {
		_, err := os.Stat(socket)
		return err
	})
	c.daemon(t, "slurmctld", "slurmctld", "-D", "-f", c.conf)
	c.daemon(t, "slurmd-n1", "slurmd", "-D", "-N", "n1", "-f", c.conf)
	c.daemon(t, "slurmd-n2", "slurmd", "-D", "-N", "n2", "-f", c.conf)
	c.waitFor(t, "both nodes idle", 30*time.Second, func() error {
		out, err := c.command("sinfo", "-h", "-N", "-o", "%N %T").CombinedOutput()
		if err != nil {
			return fmt.Errorf("sinfo: %v: %s", err, out)
		}
		if got := strings.Fields(string(out)); strings.Join(got, " ") != "n1 idle n2 idle" {
			return fmt.Errorf("sinfo: %s", out)
		}
		return nil
	})
	return c
}

// daemon starts one daemon in the foreground and registers its stop:
// SIGTERM to that pid, then SIGKILL if it lingers.
func (c *slurmCluster) daemon(t *testing.T, name, prog string, args ...string) {
	t.Helper()
	log := filepath.Join(c.dir, "log", name+".out")
	out, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	c.logs = append(c.logs, log)
	cmd := c.command(prog, args...)
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group: a test's timeout kill never reaches it, and
	// it never gets the terminal's signals.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		out.Close()
		t.Fatalf("starting %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); out.Close(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Logf("%s (pid %d) ignored SIGTERM; killing it", name, cmd.Process.Pid)
			cmd.Process.Kill()
			<-done
		}
	})
}

// command is a Slurm or munge command that talks to this cluster.
func (c *slurmCluster) command(prog string, args ...string) *exec.Cmd {
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), c.env...)
	return cmd
}

// waitFor polls ready until it succeeds; on timeout the daemon logs go into
// the failure.
func (c *slurmCluster) waitFor(t *testing.T, what string, timeout time.Duration, ready func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := ready()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Slurm test cluster: no %s after %v: %v\n%s", what, timeout, err, c.logTails())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// logTails returns the end of every daemon log.
func (c *slurmCluster) logTails() string {
	var b strings.Builder
	logs := append([]string{}, c.logs...)
	more, _ := filepath.Glob(filepath.Join(c.dir, "log", "*.log"))
	for _, l := range append(logs, more...) {
		data, err := os.ReadFile(l)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		s := string(data)
		if len(s) > 2000 {
			s = "..." + s[len(s)-2000:]
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", filepath.Base(l), s)
	}
	return b.String()
}

// salloc runs argv in a fresh allocation of nodes nodes with tasks tasks
// per node, with extra environment, and returns what it left behind.
func (c *slurmCluster) salloc(t *testing.T, nodes, tasks int, env []string, argv ...string) result {
	t.Helper()
	args := append([]string{fmt.Sprintf("-N%d", nodes), fmt.Sprintf("--ntasks-per-node=%d", tasks), "--quiet"}, argv...)
	return execute(t, job{env: append(append([]string{}, c.env...), env...), timeout: 60 * time.Second}, "salloc", args...)
}

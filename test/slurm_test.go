package test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSlurm runs Ghost inside allocations of a real Slurm cluster of two
// fake nodes (slurm_cluster_test.go), through `ghost run` with srun and
// with hydra's Slurm launcher, through srun called directly, and through
// sbatch. One cluster serves every subtest, which run one after another:
// each allocation takes both nodes.
func TestSlurm(t *testing.T) {
	needSlurm(t)
	start := time.Now()
	c := startSlurm(t)
	t.Logf("cluster up in %v", time.Since(start).Round(10*time.Millisecond))
	ghost := filepath.Join(buildDir, "ghost")
	launchers := []struct{ name, env string }{{"srun", "GHOST_LAUNCHER=srun"}, {"hydra", "GHOST_LAUNCHER=hydra"}}
	fail := func(t *testing.T, format string, args ...any) {
		t.Helper()
		t.Fatalf(format+"\n%s", append(args, c.logTails())...)
	}

	// The acceptance: in salloc -N2 --ntasks-per-node=3,
	// ghost run -n 4 gives the application 4 ranks, 2 per node, with a
	// ghost on each node.
	t.Run("world", func(t *testing.T) {
		bin := program(t, "world.c")
		for _, l := range launchers {
			t.Run(l.name, func(t *testing.T) {
				r := c.salloc(t, 2, 3, []string{l.env, "GHOST_VERBOSE=info"}, ghost, "run", "-n", "4", "--", bin, "4", "2")
				if r.code != 0 {
					fail(t, "job failed:\n%s", r)
				}
				expectChecks(t, r, 4)
				for _, node := range []string{"node 0", "node 1"} {
					if len(ghostLines(r.stderr, "ghost 0 of "+node)) != 1 {
						t.Errorf("no ghost on %s:\n%s", node, r)
					}
				}
			})
		}
	})

	// Uneven: 3 ranks on 2 nodes are 2 and 1, each node with its ghost.
	t.Run("uneven", func(t *testing.T) {
		bin := program(t, "world.c")
		for _, l := range launchers {
			t.Run(l.name, func(t *testing.T) {
				r := c.salloc(t, 2, 3, []string{l.env, "GHOST_VERBOSE=info"}, ghost, "run", "-n", "3", "--", bin, "3")
				if r.code != 0 {
					fail(t, "job failed:\n%s", r)
				}
				expectChecks(t, r, 3)
				for _, node := range []string{"node 0", "node 1"} {
					if len(ghostLines(r.stderr, "ghost 0 of "+node)) != 1 {
						t.Errorf("no ghost on %s:\n%s", node, r)
					}
				}
				if strings.Contains(r.stderr, "srun: Warning") || strings.Contains(r.stderr, "srun: error") {
					t.Errorf("the launcher complained:\n%s", r)
				}
			})
		}
	})

	t.Run("dry_run", func(t *testing.T) {
		r := c.salloc(t, 2, 3, nil, ghost, "run", "-n", "4", "--dry-run", "--", "./app")
		want := regexp.MustCompile(`^srun --mpi=pmi2 -N2 -n6 --ntasks-per-node=3 --export=ALL,LD_PRELOAD=\S*libghost\.so,GHOST_NG=1 \./app\n$`)
		if r.code != 0 || !want.MatchString(r.stdout) {
			t.Fatalf("dry run:\n%s", r)
		}
		r = c.salloc(t, 2, 3, []string{"GHOST_LAUNCHER=hydra"}, ghost, "run", "-n", "4", "--dry-run", "--", "./app")
		if r.code != 0 || !strings.Contains(r.stdout, " -launcher slurm -hosts n1:3,n2:3 -n 6 ") {
			t.Fatalf("hydra dry run:\n%s", r)
		}
	})

	// Users plus ghosts that do not fit: one error, naming what to ask for.
	t.Run("too_small", func(t *testing.T) {
		r := c.salloc(t, 2, 3, nil, ghost, "run", "-n", "6", "--", "/bin/true")
		if r.code != 2 || !strings.Contains(r.stderr, "ask Slurm for --ntasks-per-node=4") || strings.Count(r.stderr, "\n") != 1 {
			t.Fatalf("want one error asking for --ntasks-per-node=4, status 2:\n%s", r)
		}
	})

	t.Run("doctor", func(t *testing.T) {
		r := c.salloc(t, 2, 3, nil, ghost, "doctor", "--no-probe", "-n", "4")
		words := strings.Join(strings.Fields(r.stdout), " ")
		for _, want := range []string{"nodes: 2: n1, n2", "tasks per node: 3, 3", "command: srun --mpi=pmi2 -N2 -n6 --ntasks-per-node=3",
			"node n1: 2 users, 1 ghost", "node n2: 2 users, 1 ghost"} {
			if !strings.Contains(words, want) {
				t.Errorf("doctor's report lacks %q:\n%s", want, r)
			}
		}
	})

	// A subset of the RMA conformance suite, every synchronization mode,
	// with origins and targets on both nodes.
	t.Run("rma", func(t *testing.T) {
		for _, name := range []string{"put.c", "acc.c", "get_acc.c", "fence_ring.c", "pscw_ring.c", "mutex_excl.c", "req_epochs.c"} {
			bin := programIn(t, "rma", name)
			t.Run(strings.TrimSuffix(name, ".c"), func(t *testing.T) {
				r := c.salloc(t, 2, 3, nil, ghost, "run", "-n", "4", "--", bin)
				expectChecks(t, r, 4)
			})
		}
	})

	// One user per node: the origin on n1 reaches the target on n2 while
	// the target computes outside MPI, through n2's ghost.
	t.Run("async_progress", func(t *testing.T) {
		bin := program(t, "async_progress.c")
		for _, op := range []string{"acc", "put"} {
			t.Run(op, func(t *testing.T) {
				r := c.salloc(t, 2, 2, nil, ghost, "run", "-n", "2", "--", bin, op, "10")
				if r.code != 0 || !strings.Contains(r.stdout, "target: arrived_outside_mpi=1") ||
					!strings.Contains(r.stdout, "target: final value 42") {
					t.Fatalf("the value did not arrive while the target computed:\n%s", r)
				}
			})
		}
	})

	t.Run("exit_codes", func(t *testing.T) {
		bin := program(t, "lifecycle.c")
		for _, l := range launchers {
			t.Run(l.name, func(t *testing.T) {
				r := c.salloc(t, 2, 2, []string{l.env}, ghost, "run", "-n", "2", "--", bin, "exit", "3")
				if r.code != 3 {
					t.Errorf("exit 3: job status %d\n%s", r.code, r)
				}
				// Under srun, MPI_Abort ends the step through Slurm, which
				// kills the tasks: 137. Hydra returns the abort code.
				want := 137
				if l.name == "hydra" {
					want = 7
				}
				r = c.salloc(t, 2, 2, []string{l.env}, ghost, "run", "-n", "2", "--", bin, "abort", "7")
				if r.code != want {
					t.Errorf("MPI_Abort(7): job status %d, want %d\n%s", r.code, want, r)
				}
			})
		}
	})

	// Ranks that finalize, a rank that exits with a code without
	// MPI_Finalize, and ranks that return a code from main without it: the
	// job's status under Ghost is plain MPICH's through the same launcher.
	// Under srun the PMI server is Slurm's pmi2 plugin; a ghost that leaves
	// with its users tells it that it is done in the protocol its own MPI
	// library spoke on that connection (c/life.c).
	t.Run("leaving", func(t *testing.T) {
		bin, ghostBin := program(t, "ending.c"), ghost
		plainArgs := map[string][]string{
			"srun":  {"srun", "--mpi=pmi2", "-n", "2", "--ntasks-per-node=1"},
			"hydra": {"mpiexec.hydra", "-launcher", "slurm", "-hosts", "n1:1,n2:1", "-n", "2"},
		}
		for _, l := range launchers {
			for _, args := range [][]string{{"sleep", "0"}, {"exitone", "3"}, {"return", "5"}} {
				// hydra under srun records a rank that its proxy kills during
				// cleanup as 0 or 9 by chance, without Ghost too (plain
				// "exitone" once ended with 1 there): a pair that differs is
				// run again, at most three pairs, as in
				// TestExitStatusLikePlain; a real difference shows in each.
				t.Run(l.name+"_"+strings.Join(args, "_"), func(t *testing.T) {
					var plain, ghost result
					for range 3 {
						plain = c.salloc(t, 2, 2, nil, append(append([]string{}, plainArgs[l.name]...), append([]string{bin}, args...)...)...)
						ghost = c.salloc(t, 2, 2, []string{l.env, "GHOST_VERBOSE=info"}, append([]string{ghostBin, "run", "-n", "2", "--", bin}, args...)...)
						if args[0] != "sleep" {
							if left := ghostLines(ghost.stderr, "without MPI_Finalize; leaving"); len(left) != 2 {
								t.Fatalf("%d ghost(s) left by themselves, want 2\n%s", len(left), ghost)
							}
						}
						if plain.code == ghost.code && !plain.timedOut && !ghost.timedOut {
							return
						}
					}
					fail(t, "plain: %d, Ghost: %d\n--- plain\n%s\n--- ghost\n%s", plain.code, ghost.code, plain, ghost)
				})
			}
		}
	})

	// Each fake node's first ghost writes its own record.
	t.Run("metrics_textfile", func(t *testing.T) {
		dir := t.TempDir()
		r := c.salloc(t, 2, 2, []string{"GHOST_METRICS_TEXTFILE=" + dir, "GHOST_METRICS_ADDR=off"},
			ghost, "run", "-n", "2", "--", program(t, "metrics_ops.c"))
		if r.code != 0 || strings.Count(r.stdout, ": done") != 2 {
			t.Fatalf("job failed\n%s", r)
		}
		checkNodeTextfiles(t, dir, r)
	})

	// The shipped batch script, through sbatch: ghost run, then srun with
	// ghost srun-args. Its output file is checked.
	t.Run("sbatch", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "job.out")
		script, _ := filepath.Abs("../docs/examples/ghost-slurm.sbatch")
		r := execute(t, job{env: append(append([]string{}, c.env...), "GHOST="+ghost, "APP="+program(t, "world.c")), timeout: 60 * time.Second},
			"sbatch", "--wait", "--chdir="+dir, "--output="+out, script, "4", "2")
		data, _ := os.ReadFile(out)
		res := result{stdout: string(data), code: r.code}
		if r.code != 0 {
			fail(t, "sbatch --wait: %s\n--- job output\n%s", r, data)
		}
		if got := len(summaryLine.FindAllString(res.stdout, -1)); got != 8 {
			t.Fatalf("job output has %d rank summaries, want 4 from ghost run and 4 from srun:\n%s", got, data)
		}
		if strings.Contains(res.stdout, "FAIL") || strings.Count(res.stdout, " of 4: ") != 8 {
			t.Fatalf("job output:\n%s", data)
		}
	})
	t.Logf("Slurm test: %v in all", time.Since(start).Round(100*time.Millisecond))
}

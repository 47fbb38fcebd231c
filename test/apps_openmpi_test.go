package test

// Open MPI's builds of the same clients (issue 17, point 5): Debian's
// nwchem.openmpi on the test/apps/nwchem inputs, our ARMCI-MPI programs
// linked with libarmci-openmpi.a, OpenCoarrays' shipped tests from its Open
// MPI build plus our event program built with caf.openmpi, and an mpi4py
// program (Debian's mpi4py is built on Open MPI) that uses
// MPI.Win.Allocate, Lock, Accumulate and Fetch_and_op while its target
// computes. Each runs under plain Open MPI (mpirun.openmpi), the column
// every Ghost result is held to, and, when the Ghost-on-Open-MPI column is
// on (ghostOpenMPIOn), under `ghost run`, which takes libghost-openmpi.so
// and mpirun.openmpi for an Open MPI program by itself. The rows share the
// MPICH tests' rows (addRow) where the program and setup are the same.

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/internal/apps"
)

var appsOpenMPIGhost = flag.Bool("apps.openmpi-ghost", true,
	"also run Open MPI's builds of the applications under ghost run with build/libghost-openmpi.so, when it is built, "+
		"and require them to pass wherever plain Open MPI passes (-apps.openmpi-ghost=false: plain Open MPI only)")

// ghostOpenMPIOn is the one condition of the Ghost-on-Open-MPI column: the
// library is built (make builds it where Open MPI's headers are) and
// -apps.openmpi-ghost, on by default, is not turned off.
func ghostOpenMPIOn() bool { return *appsOpenMPIGhost && openMPILibrary() != "" }

// ghostOpenMPIState says in words whether that column runs, and why not.
func ghostOpenMPIState() string {
	switch {
	case ghostOpenMPIOn():
		return "on"
	case openMPILibrary() == "":
		return "off, libghost-openmpi.so is not built"
	}
	return "off, -apps.openmpi-ghost=false"
}

// ghostOpenMPICell is the column's cell when it does not run.
func ghostOpenMPICell() cell { return skippedCell("(" + ghostOpenMPIState() + ")") }

// needOpenMPIApp is needApp for an application's Open MPI build: it skips
// (fails in CI) when the package or Open MPI's launcher is missing.
func needOpenMPIApp(t *testing.T, pkg string, paths []string, tools ...string) {
	t.Helper()
	needMPI(t)
	if miss := apps.Missing(paths, append(tools, apps.OpenMPI.Launcher)); miss != "" {
		msg := fmt.Sprintf("%s missing (Debian packages %s and openmpi-bin; `make apps` installs them)", miss, pkg)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// openMPIRow runs args, a program built for Open MPI, in the Open MPI
// columns of row: plain Open MPI, then Ghost when its column is on. judge
// turns a run into a cell (ref: the plain run's cell, for judges that
// compare with it). It fails the test when plain Open MPI does not pass and
// mustPass says it should, and whenever Ghost fails what plain Open MPI
// passes.
func openMPIRow(t *testing.T, row *appRow, l layout, timeout time.Duration, mustPass bool,
	judge func(r appResult, plainRun *appResult) cell, dir func() string, args ...string) {
	t.Helper()
	r := appRun(t, l, openMPIPlain, dir(), timeout, args...)
	row.cells[openMPIPlain] = judge(r, nil)
	p := row.cells[openMPIPlain]
	if mustPass && p.ran && !p.ok {
		t.Errorf("%s under plain Open MPI (%s): %s\n%s", row.test, l.name, p.status, r)
	}
	if !ghostOpenMPIOn() {
		row.cells[ghostOpenMPI] = ghostOpenMPICell()
		return
	}
	g := appRun(t, l, ghostOpenMPI, dir(), timeout+2*time.Minute, args...)
	row.cells[ghostOpenMPI] = judge(g, &r)
	if c := row.cells[ghostOpenMPI]; !c.ran {
		row.note = fmt.Sprintf("Ghost on Open MPI not run: %d processes > -apps.maxprocs=%d (APPS_FLAGS='-apps.maxprocs %d' runs it)",
			l.procs(ghostOpenMPI), *appsMaxProcs, l.procs(ghostOpenMPI))
	} else if p.ok && !c.ok {
		row.note = "GHOST REGRESSION on Open MPI: plain Open MPI passes"
		t.Errorf("%s (%s): plain Open MPI %s, but Ghost on Open MPI %s\n%s", row.test, l.name, p.status, c.status, g)
	} else if c.ran {
		t.Logf("Ghost on Open MPI (%s): %s", l.name, c)
	}
}

// mpichAs marks a row's MPICH columns as not run, saying why.
func mpichAs(row *appRow, why string) {
	for _, m := range []mode{plain, noLocal, ghosted} {
		row.cells[m] = skippedCell(why)
	}
}

// TestAppsOpenMPINWChem: nwchem.openmpi's energies under plain Open MPI
// agree with the reference to 1e-8 Hartree, and under Ghost on Open MPI
// with plain Open MPI's. `make test` runs water SCF; the full sweep every
// input, and 2 ghosts in the Ghost column.
func TestAppsOpenMPINWChem(t *testing.T) {
	needOpenMPIApp(t, "nwchem-openmpi", []string{apps.OpenMPI.NWChem})
	const timeout = 4 * time.Minute
	layouts := []layout{{name: "1 node: 2 users + 1 ghost", users: 2, ghosts: 1, nodes: 1}}
	if *appsFull {
		layouts = append(layouts, layout{name: "1 node: 2 users + 2 ghosts", users: 2, ghosts: 2, nodes: 1})
	}
	for _, in := range nwchemInputs {
		if !*appsFull && !in.subset {
			continue
		}
		t.Run(in.name, func(t *testing.T) {
			ref, haveRef := apps.NWChemReference[in.name]
			src, err := os.ReadFile(filepath.Join("apps", "nwchem", in.name+".nw"))
			if err != nil {
				t.Fatal(err)
			}
			// NWChem writes its database and scratch files where it runs.
			dir := func() string {
				d := t.TempDir()
				if err := os.WriteFile(filepath.Join(d, in.name+".nw"), src, 0o644); err != nil {
					t.Fatal(err)
				}
				return d
			}
			judge := func(r appResult, plainRun *appResult) cell {
				e, haveE := apps.Energy(r.stdout)
				want, haveWant := ref, haveRef
				if plainRun != nil {
					// Ghost against plain Open MPI, as the issue asks.
					want, haveWant = apps.Energy(plainRun.stdout)
				}
				return nwchemCell(r, e, haveE, want, haveWant)
			}
			for i, l := range layouts {
				row := appRow{app: "NWChem", test: in.name, setup: l.name}
				if i == 0 {
					openMPIRow(t, &row, l, timeout, true, judge, dir, apps.OpenMPI.NWChem, in.name+".nw")
				} else {
					// Plain Open MPI has no ghosts: its row is the first.
					row.cells[openMPIPlain] = skippedCell("(as 1 ghost)")
					row.cells[ghostOpenMPI] = ghostOpenMPICell()
					if ghostOpenMPIOn() {
						g := appRun(t, l, ghostOpenMPI, dir(), timeout+2*time.Minute, apps.OpenMPI.NWChem, in.name+".nw")
						row.cells[ghostOpenMPI] = judge(g, nil)
						if !row.cells[ghostOpenMPI].ok {
							t.Errorf("%s under Ghost on Open MPI (%s): %s\n%s", in.name, l.name, row.cells[ghostOpenMPI].status, g)
						}
					}
				}
				addRow(row)
			}
		})
	}
}

// TestAppsOpenMPIARMCI: our ARMCI-MPI programs linked with
// libarmci-openmpi.a give exact results under plain Open MPI, and under
// Ghost on Open MPI. `make test` runs armci_contig and armci_nxtask on 2
// ranks; the full sweep every program, and 3 ranks.
func TestAppsOpenMPIARMCI(t *testing.T) {
	needOpenMPIApp(t, "libarmci-mpi-dev and libopenmpi-dev", []string{apps.OpenMPI.ARMCILib, armciHeader}, apps.OpenMPI.Mpicc)
	const timeout = 2 * time.Minute
	layouts := []layout{{name: "1 node, GHOST_NG=1", users: 2, ghosts: 1, nodes: 1}}
	if *appsFull {
		layouts = append(layouts, layout{name: "3 ranks, GHOST_NG=1", users: 3, ghosts: 1, nodes: 1})
	}
	for _, p := range armciProgs {
		if !*appsFull && !p.subset {
			continue
		}
		name := p.src[:len(p.src)-len(filepath.Ext(p.src))]
		t.Run(name, func(t *testing.T) {
			bin := appBinaryFor(t, apps.OpenMPI, "armci", p.src)
			for _, l := range layouts {
				row := appRow{app: "ARMCI-MPI", test: name, setup: l.name}
				judge := func(r appResult, _ *appResult) cell { return checksCell(r, l.users) }
				openMPIRow(t, &row, l, timeout, true, judge, func() string { return "" }, append([]string{bin}, p.args...)...)
				addRow(row)
			}
		})
	}
}

// TestAppsOpenMPICoarrays: our event program built with caf.openmpi, and
// OpenCoarrays' shipped tests from its Open MPI build. Ghost on Open MPI
// must pass every test plain Open MPI passes, and complete the event posts
// while their targets compute. `make test` runs the event program and the
// shipped tests of cafSubset; the full sweep every shipped test, with 2
// images and with as many as it needs.
func TestAppsOpenMPICoarrays(t *testing.T) {
	om := apps.OpenMPI
	needOpenMPIApp(t, "libcoarrays-openmpi-dev", []string{om.CafTestDir}, om.Caf)
	const timeout = 5 * time.Minute
	noDir := func() string { return "" }

	t.Run("event_compute", func(t *testing.T) {
		bin := appBinaryFor(t, om, "coarray", "event_compute.f90")
		layouts := []layout{{name: "2 images, GHOST_NG=1", users: 2, ghosts: 1, nodes: 1}}
		if *appsFull {
			layouts = append(layouts, layout{name: "3 images, GHOST_NG=1", users: 3, ghosts: 1, nodes: 1})
		}
		for _, l := range layouts {
			row := appRow{app: "OpenCoarrays", test: "event_compute (ours)", setup: l.name}
			judge := func(r appResult, plainRun *appResult) cell {
				c, async := eventCell(r)
				if plainRun != nil && c.ok && !async {
					// Ghost must keep what plain Open MPI gives.
					c.ok, c.status = false, "FAIL (posts waited for the computing targets)"
				}
				return c
			}
			openMPIRow(t, &row, l, timeout, true, judge, noDir, bin, "3.0", "5")
			addRow(row)
		}
	})

	cases := cafSubset
	if *appsFull {
		cases = cafCases(t, om.CafTestDir)
	}
	for _, tc := range cases {
		key := tc.name
		if tc.images != 2 {
			key = fmt.Sprintf("%s@%d", tc.name, tc.images)
		}
		t.Run(key, func(t *testing.T) {
			l := layout{name: fmt.Sprintf("%d images", tc.images), users: tc.images, ghosts: 1, nodes: 1}
			row := appRow{app: "OpenCoarrays", test: tc.name, setup: l.name}
			judge := func(r appResult, _ *appResult) cell { return cafCell(r) }
			// Plain Open MPI's failures are recorded, not required away:
			// the rule is that Ghost passes what plain Open MPI passes.
			openMPIRow(t, &row, l, timeout, false, judge, noDir, filepath.Join(om.CafTestDir, tc.name))
			if c := row.cells[openMPIPlain]; c.ran && !c.ok {
				// The reasons MPICH's build fails for, or else an error:
				// a plain Open MPI failure nobody can explain.
				if row.note = cafExpected(tc); row.note == "" {
					row.note = "plain Open MPI: " + c.status + ", unexplained"
					t.Errorf("%s with %d images fails under plain Open MPI, with no known reason: %s", tc.name, tc.images, c.status)
				}
			}
			addRow(row)
		})
	}
}

// TestAppsOpenMPIMpi4py: test/apps/mpi4py/win_compute.py, with Debian's
// mpi4py, under plain Open MPI and under Ghost on Open MPI: every value
// right, and the accumulates and fetch-and-ops done while the target
// computes (plain Open MPI's shared-memory osc/rdma already does that on
// one node; Ghost must not lose it). `make test` runs 2 ranks; the full
// sweep 3 ranks too.
func TestAppsOpenMPIMpi4py(t *testing.T) {
	needOpenMPIApp(t, "python3-mpi4py", nil)
	python := mpi4pyPython(t)
	script, err := filepath.Abs(filepath.Join("apps", "mpi4py", "win_compute.py"))
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 2 * time.Minute
	layouts := []layout{{name: "2 ranks, GHOST_NG=1", users: 2, ghosts: 1, nodes: 1}}
	if *appsFull {
		layouts = append(layouts, layout{name: "3 ranks, GHOST_NG=1", users: 3, ghosts: 1, nodes: 1})
	}
	for _, l := range layouts {
		row := appRow{app: "mpi4py", test: "win_compute (ours)", setup: l.name}
		mpichAs(&row, "(Debian's mpi4py is built on Open MPI)")
		judge := func(r appResult, _ *appResult) cell {
			c := checksCell(r, l.users)
			if async, found := apps.Mpi4pyOpsAsync(r.stdout); c.ok {
				switch {
				case !found:
					c.ok, c.status = false, "FAIL (no verdict line)"
				case async:
					c.status = "PASS, ops async"
				default:
					c.ok, c.status = false, "FAIL (ops waited for the computing target)"
				}
			}
			return c
		}
		openMPIRow(t, &row, l, timeout, true, judge, func() string { return "" }, python, script, "2.0", "5")
		row.note = "ACC and FOP under lock/unlock to a target computing 2 s in Python"
		addRow(row)
	}
}

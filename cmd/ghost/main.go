// Command ghost launches MPI programs with Ghost's asynchronous-progress
// ghosts and helps operate them.
package main

import (
	"fmt"
	"os"
)

const usage = `usage: ghost <command> [arguments]

Commands:
  run        start an MPI program with ghost processes, also inside Slurm
             allocations (ghost run --help)
  srun-args  print the srun options that add Ghost to a job, for scripts
             that call srun themselves (ghost srun-args --help)
  doctor     check the MPI library, asynchronous progress, node layout,
             RDMA devices and GHOST_* settings (ghost doctor --help)
  calibrate  measure this machine's CR thresholds for GHOST_THRESHOLDS
             (ghost calibrate --help)
  report     print and plot the timeline of a GHOST_TRACE file (ghost report --help),
             or summarize GHOST_METRICS_TEXTFILE records (ghost report DIR|FILE.prom...)

Environment variables are documented in docs/reference.md.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	switch os.Args[1] {
	case "run":
		os.Exit(runCommand(os.Args[2:], os.Stdout, os.Stderr))
	case "srun-args":
		os.Exit(srunArgsCommand(os.Args[2:], os.Stdout, os.Stderr))
	case "doctor":
		os.Exit(doctorCommand(os.Args[2:], os.Stdout, os.Stderr))
	case "calibrate":
		os.Exit(calibrateCommand(os.Args[2:], os.Stdout, os.Stderr))
	case "report":
		if isMetricsReport(os.Args[2:]) {
			os.Exit(reportMetricsCommand(os.Args[2:], os.Stdout, os.Stderr))
		}
		os.Exit(reportCommand(os.Args[2:], os.Stdout, os.Stderr))
	case fakeNodeAgent: // mpirun's rsh agent for Open MPI fake nodes, not for people
		os.Exit(fakeNodeAgentCommand(os.Args[2:], os.Stderr))
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "ghost: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
}

# Turns bench/openmpi-progress.sh's JSON into the markdown report.

def ms: if . == null then "-" elif . < 1 then ((. * 1000 | round) / 1000 | tostring) else ((. * 10 | round) / 10 | tostring) end;

# One table cell: how long until the operation was done on both sides, when
# that happened while the target computed in every repetition; "waits" when
# it never did (with the origin's completing call, which under PSCW can
# return before the data reaches the target).
def cell:
  (if .done_while_computing == .reps then "\(.done_ms | ms)"
   elif .done_while_computing == 0 then (if .sync == "fence" then "waits" else "waits (\(.completion_ms | ms))" end)
   else "\(.done_while_computing)/\(.reps): \(.done_ms | ms)" end)
  + (if .target_cpu_share < 0.9 then " †" else "" end)
  + (if .wrong_values > 0 then " **\(.wrong_values) wrong**" else "" end);

def ops: ["put", "get", "acc", "fop"];
def order: {allocate: 0, create: 1, dynamic: 2, shared: 3, lock: 0, lockall: 1, pscw: 2, fence: 3};

def matrix(cells):
  "| flavour | sync | PUT | GET | ACC | FOP |",
  "|---|---|---|---|---|---|",
  (cells | group_by([.flavour, .sync]) | sort_by(order[.[0].flavour], order[.[0].sync])[] as $row
   | "| \($row[0].flavour) | \($row[0].sync) | "
     + ([ops[] as $op | ($row | map(select(.op == $op))[0] // null) | if . == null then "-" else cell end] | join(" | "))
     + " |");

"# Plain Open MPI: does an RMA operation complete while its target computes?",
"",
"\(.mpi) on `\(.host)` (\(.cpus) CPUs), \(.date), run at niceness \(.niceness // 0). Written by `bench/openmpi-progress.sh` from `bench/programs/openmpi_progress.c`. `/etc/openmpi/openmpi-mca-params.conf` sets: `\(if .mca_params_conf == "" then "nothing" else .mca_params_conf end)`.",
"",
"Two ranks. The target busy-loops \(.compute_ms) ms outside MPI; the origin issues one 8-byte operation 5 ms into the loop and completes it (lock: lock/op/unlock; lockall: op/flush inside lock_all; pscw: start/op/complete against a posted target; fence: op, then the closing fence). Each cell is the median over \(.reps) repetitions of the time from the issue until the operation was done: under lock and lockall, the return of MPI_Win_unlock or MPI_Win_flush, which completes it at the target too; under PSCW, the later of MPI_Win_complete's return (which completes it at the origin only) and the moment the target saw the update in its memory (PUT, ACC, FOP; the target watches its slot while it loops); under fence, whose closing call waits for the target by definition, when the update was in the target's memory and the fetched value in the origin's buffer (GET, FOP). **waits** means it was done only after the target stopped computing, in every repetition; the number in brackets is then the origin's completing call, which under PSCW can return early while the data still waits for the target. k/n means k of n repetitions were done in time. A repetition in which the target started its loop only after the issue (it lacked a core, and served the operation from inside MPI) is run again, up to 10 times a cell; the summary counts them. † marks a cell whose target had less than 90% of a core in its loop (median): another process took the core, so its times include the target's waits for a core and, under PSCW and fence, the target may have seen its value late or not at all.",
"",
"## Summary",
"",
"| configuration | osc component per flavour | cells done while the target computed | load average before → after | target CPU share in its loop (min, median) | repetitions run again |",
"|---|---|---|---|---|---|",
(.configs[] |
  "| `\(.name)`: \(.what) | \(.components | to_entries | map("\(.key): \(.value)") | join(", ")) | "
  + "\(.cells | map(select(.done_while_computing == .reps)) | length) of \(.cells | length)"
  + (if .exit_status != 0 then " (exit \(.exit_status): \(.error))" else "" end)
  + " | \(.load_before) → \(.load_after) | \(.cells | map(.target_cpu_share) | sort | if length == 0 then "-" else "\(.[0]), \(.[length / 2 | floor])" end)"
  + " | \(.cells | map(.redone // 0) | add // 0) |"),
"",
(.configs[] |
  "## `\(.name)`: \(.what)",
  "",
  "`mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 \(.mpirun_args)`",
  "",
  "osc component: \(.components | to_entries | map("\(.key) \(.value)") | join(", ")). Load average \(.load_before) before, \(.load_after) after.",
  (if .exit_status != 0 then "", "The run stopped with exit status \(.exit_status): `\(.error)`. Cells after that point are missing." else empty end),
  (.skipped[] | "", "Left out: \(.flavour) (\(.reason))."),
  "",
  matrix(.cells),
  ""),
(if .mpi4py.skipped then "## mpi4py", "", "Not measured: \(.mpi4py.skipped)."
 else
  "## mpi4py (python3-mpi4py, the installed defaults)",
  "",
  "`MPI.Win.Allocate`, `Lock`/`Unlock` around `Accumulate`, `Fetch_and_op` and `Put`, while the target computes in Python for \(.compute_ms) ms. Load average \(.mpi4py.load_before) before, \(.mpi4py.load_after) after."
  + (if .mpi4py.exit_status != 0 then " The run stopped with exit status \(.mpi4py.exit_status)." else "" end),
  "",
  matrix(.mpi4py.cells)
 end)

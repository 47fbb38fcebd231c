"""One-sided communication from Python (mpi4py): MPI.Win.Allocate, Lock,
Accumulate, Fetch_and_op and Get on every rank's window, each rank aiming
at every other. Self-checking like the C programs (check.h): a FAIL line
per failed check and "rank R of S: N checks, F failed" at the end."""
import array
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
me, n = comm.Get_rank(), comm.Get_size()
checks = failed = 0


def say(line):
    # One write a line: mpirun forwards each write as it comes, so a line
    # and its newline written apart splice with other ranks' lines.
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def check(ok, what):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
        say(f"FAIL rank {me} rma_mpi4py.py: {what}")


# Two 8-byte slots a rank: [0] takes every origin's ACC and FOP, [1] stays 7.
win = MPI.Win.Allocate(16, 8, comm=comm)
mem = win.tomemory()
win.Lock(me, MPI.LOCK_EXCLUSIVE)
mem[:16] = (0).to_bytes(8, "little") + (7).to_bytes(8, "little")
win.Unlock(me)
comm.Barrier()

fetched = []
for t in range(n):
    win.Lock(t, MPI.LOCK_SHARED)
    win.Accumulate(array.array("q", [1]), t, target=(0, 1, MPI.LONG_LONG), op=MPI.SUM)
    old = array.array("q", [0])
    win.Fetch_and_op(array.array("q", [1]), old, t, target_disp=0, op=MPI.SUM)
    seven = array.array("q", [0])
    win.Get(seven, t, target=(1, 1, MPI.LONG_LONG))
    win.Unlock(t)
    check(seven[0] == 7, f"get from {t}: {seven[0]}, want 7")
    fetched.append(old[0])
comm.Barrier()

win.Lock(me, MPI.LOCK_SHARED)
total = int.from_bytes(bytes(mem[:8]), "little")
win.Unlock(me)
check(total == 2 * n, f"slot 0 holds {total}, want {2 * n} (an ACC and a FOP from each rank)")
# The values FOP fetched at one target are distinct: each saw the others'.
per_target = comm.allgather(fetched)
for t in range(n):
    seen = [per_target[o][t] for o in range(n)]
    check(len(set(seen)) == n, f"FOP at {t} fetched {seen}: not distinct")
win.Free()
say(f"rank {me} of {n}: {checks} checks, {failed} failed")
sys.exit(0)

"""One-sided atomics with mpi4py while the target computes in Python.

The last rank is the target: it allocates nothing special, computes for
argv[1] seconds (default 2.0) in a pure-Python loop that never calls MPI,
and watches its own window memory while it does. Every other rank is an
origin: 0.1 s into that computation it issues argv[2] rounds (default 5)
of, each in its own passive-target epoch on an MPI.Win.Allocate window,

    Lock(target, shared); Accumulate(+1, slot 0, SUM); Unlock
    Lock(target, shared); Fetch_and_op(+1, slot 1, SUM); Unlock

and times them. With asynchronous progress (the MPI's own, or Ghost's) the
unlocks return while the target still computes; without it they wait for
the target's next MPI call, after its computation.

Checks, in test/programs/check.h's format ("rank R of N: C checks, F
failed"): each origin's fetched values are distinct and within range; the
target's slots hold every update once; and the target saw slot 0 reach its
final value (or not) during its computation, as the origins' timings say.
Rank 0 prints "mpi4py: ops_completed_while_target_computed=0|1".
"""
import sys
import time
from array import array

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
compute = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
target = size - 1
origins = size - 1
checks = failed = 0


def say(text):
    """Print one line in one write: Open MPI forwards each rank's output
    in the pieces it was written in, and print() may write the text and
    its newline separately, so another rank's line could land between."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def check(ok, what):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
        say("FAIL rank %d: %s" % (rank, what))


if size < 2:
    say("win_compute: needs at least 2 ranks")
    comm.Abort(2)

win = MPI.Win.Allocate(2 * 8, disp_unit=8, comm=comm)
slots = memoryview(win.tomemory()).cast("B").cast("q")
win.Lock(rank, MPI.LOCK_EXCLUSIVE)
slots[0] = slots[1] = 0
win.Unlock(rank)
comm.Barrier()

op_s = 0.0
if rank == target:
    start = time.perf_counter()
    end = start + compute
    final = rounds * origins
    arrived = -1.0
    x = 0
    while time.perf_counter() < end:
        x += 1  # computation that never enters MPI
        if arrived < 0 and x % 64 == 0 and slots[0] == final:
            arrived = time.perf_counter() - start
    comm.Barrier()  # the origins are done
    win.Lock(rank, MPI.LOCK_SHARED)
    acc, fop = slots[0], slots[1]
    win.Unlock(rank)
    check(acc == final, "slot 0 is %d, want %d" % (acc, final))
    check(fop == final, "slot 1 is %d, want %d" % (fop, final))
    say("win_compute: target computed %.3f s; all updates arrived %s" %
        (compute, "at %.4f s" % arrived if arrived >= 0 else "after it"))
else:
    time.sleep(0.1)  # the target is computing now
    one, fetched = array("q", [1]), array("q", [0])
    seen = []
    t0 = time.perf_counter()
    for _ in range(rounds):
        win.Lock(target, MPI.LOCK_SHARED)
        win.Accumulate([one, MPI.INT64_T], target, target=[0, 1, MPI.INT64_T], op=MPI.SUM)
        win.Unlock(target)
        win.Lock(target, MPI.LOCK_SHARED)
        win.Fetch_and_op([one, MPI.INT64_T], [fetched, MPI.INT64_T], target, 1, MPI.SUM)
        win.Unlock(target)
        seen.append(fetched[0])
    op_s = time.perf_counter() - t0
    check(len(set(seen)) == rounds, "fetched values repeat: %s" % seen)
    check(all(0 <= v < rounds * origins for v in seen), "fetched values out of range: %s" % seen)
    if origins == 1:
        check(seen == list(range(rounds)), "fetched %s, want 0..%d" % (seen, rounds - 1))
    comm.Barrier()

# Asynchronous when every origin finished within half the computation.
slowest = comm.allreduce(op_s, op=MPI.MAX)
if rank == 0:
    say("win_compute: %d rounds of ACC and FOP from %d origin(s) took %.4f s at most" %
        (rounds, origins, slowest))
    say("mpi4py: ops_completed_while_target_computed=%d" % (slowest < compute / 2))
win.Free()
say("rank %d of %d: %d checks, %d failed" % (rank, size, checks, failed))

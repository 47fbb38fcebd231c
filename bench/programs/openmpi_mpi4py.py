"""openmpi_mpi4py: the mpi4py row of bench/openmpi-progress.sh (issue 17).

Does a plain mpi4py program's RMA complete while its target computes in
Python? Rank 1 (the target) busy-loops for MS ms without calling MPI and
watches its window; rank 0 (the origin) waits 5 ms, then does one 8-byte
operation on a window from MPI.Win.Allocate, inside Lock/Unlock (PUT, GET,
ACC = Accumulate, FOP = Fetch_and_op). It prints the same "cell" lines as
openmpi_progress.c, so the script's table takes both.

Usage: mpirun.openmpi -n 2 python3 openmpi_mpi4py.py MS REPS
"""

import array
import json
import statistics
import sys
import time

from mpi4py import MPI

ORIGIN, TARGET = 0, 1
OPS = ["put", "get", "acc", "fop"]
GET_VALUE, PUT_VALUE, ACC_VALUE = 0x5EED, 0x1234, 7
ISSUE_DELAY = 0.005
MAX_REDO = 10


def now_us():
    return time.clock_gettime(time.CLOCK_MONOTONIC) * 1e6


def expected_after(op):
    return {"put": PUT_VALUE, "acc": ACC_VALUE, "fop": 1, "get": GET_VALUE}[op]


def target_rep(win, mem, slot, op, ms):
    """Computes outside MPI while watching the slot; returns the times."""
    initial = GET_VALUE if op == "get" else 0
    win.Lock(TARGET, MPI.LOCK_SHARED)
    mem[slot] = initial
    win.Unlock(TARGET)
    MPI.COMM_WORLD.Barrier()
    start = now_us()
    cpu0 = time.thread_time()
    landed, end, x = 0.0, start, 1.0
    while end < start + ms * 1e3:
        for _ in range(100):  # a little floating-point work between looks
            x = x * 0.999999 + 1e-6
        if not landed and mem[slot] != initial:
            landed = now_us()
        end = now_us()
    cpu = (time.thread_time() - cpu0) * 1e6
    MPI.COMM_WORLD.Barrier()
    win.Lock(TARGET, MPI.LOCK_SHARED)
    wrong = int(mem[slot] != expected_after(op))
    win.Unlock(TARGET)
    MPI.COMM_WORLD.send((start, landed, end, cpu, wrong), dest=ORIGIN, tag=1)


def origin_rep(win, slot, op):
    """Issues and completes one operation; returns the times and errors."""
    disp = slot  # disp_unit is 8
    result = array.array("q", [-1])
    MPI.COMM_WORLD.Barrier()
    time.sleep(ISSUE_DELAY)
    issue = now_us()
    win.Lock(TARGET, MPI.LOCK_SHARED)
    if op == "put":
        win.Put(array.array("q", [PUT_VALUE]), TARGET, disp)
    elif op == "get":
        win.Get(result, TARGET, disp)
    elif op == "acc":
        win.Accumulate(array.array("q", [ACC_VALUE]), TARGET, disp, MPI.SUM)
    else:
        win.Fetch_and_op(array.array("q", [1]), result, TARGET, disp, MPI.SUM)
    win.Unlock(TARGET)
    done = now_us()
    MPI.COMM_WORLD.Barrier()
    start, landed, end, cpu, wrong = MPI.COMM_WORLD.recv(source=TARGET, tag=1)
    want = {"get": GET_VALUE, "fop": 0}.get(op)
    if want is not None and result[0] != want:
        wrong += 1
    return issue, done, start, landed, end, cpu, wrong


def cell(op, reps):
    """The cell line, with openmpi_progress.c's definitions."""
    # Unlock completes the operation at the target too: its return is when
    # the operation was done (the target's own look is only a cross-check).
    done_at = [(done - issue) / 1e3 for issue, done, _, _, end, _, _ in reps if done < end]
    return {
        "type": "cell", "label": "mpi4py", "flavour": "allocate", "sync": "lock", "op": op,
        "reps": len(reps),
        "completion_ms": statistics.median((r[1] - r[0]) / 1e3 for r in reps),
        "target_busy_after_issue_ms": statistics.median((r[4] - r[0]) / 1e3 for r in reps),
        "done_while_computing": len(done_at),
        "done_ms": statistics.median(done_at) if done_at else None,
        "target_cpu_share": statistics.median(r[5] / (r[4] - r[2]) for r in reps),
        "wrong_values": sum(r[6] for r in reps),
    }


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: openmpi_mpi4py.py MS REPS")
    ms, nreps = float(sys.argv[1]), int(sys.argv[2])
    comm = MPI.COMM_WORLD
    if comm.Get_size() != 2:
        sys.exit("openmpi_mpi4py: needs exactly 2 ranks")
    rank = comm.Get_rank()
    win = MPI.Win.Allocate(8 * len(OPS), 8, comm=comm)
    mem = memoryview(win.tomemory()).cast("q") if rank == TARGET else None
    for slot, op in enumerate(OPS):
        reps, redone = [], 0
        while len(reps) < nreps:
            if rank == TARGET:
                rep = target_rep(win, mem, slot, op, ms)
            else:
                rep = origin_rep(win, slot, op)
            # As in openmpi_progress.c: a repetition counts only if the
            # target was computing when the operation was issued (start
            # before issue), else it runs again, up to MAX_REDO times.
            valid = comm.bcast(rank == ORIGIN and rep[2] < rep[0], root=ORIGIN)
            if valid or redone == MAX_REDO:
                reps.append(rep)
            else:
                redone += 1
        if rank == ORIGIN:
            c = cell(op, reps)
            c["redone"] = redone
            print(json.dumps(c), flush=True)
    if mem is not None:
        mem.release()
    win.Free()


if __name__ == "__main__":
    main()

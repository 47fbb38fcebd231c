/* Soak: argv[1] mixed operations in total (PUT, GET, ACC, FOP, CAS, Rput,
 * Rget_accumulate) through the ghosts, in lock_all epochs flushed every 64
 * operations, from every user rank to pseudo-random targets. The long run
 * is made twice, each in a window of its own: the first brings every pool
 * (MPICH's requests, UCX's buffers) to its high-water mark, and the second
 * must then leave every process the size it was, since a leak grows with
 * the operations and a pool does not. Each rank prints its resident set
 * size before and after the second run and checks the counters it can
 * verify exactly. With argv[2] "once" only the first run is made (a
 * baseline for the ghost, whose size the test reads at the end of the
 * job: windows in the node arena never involve it, so it has no other
 * moment to report). */
#include "check.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long rss_kb(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Slot 0 of every rank counts ACC+FOP+CAS increments aimed at it. */
static long run(long ops, int rank, int size, unsigned seed)
{
    long *mem;
    MPI_Win win;
    MPI_Win_allocate(64 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < 64; i++)
        mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    long sent_increments = 0, one = 1, buf[4], result;
    MPI_Win_lock_all(0, win);
    for (long i = 0; i < ops; i++) {
        int t = rand_r(&seed) % size;
        MPI_Aint slot = 1 + rand_r(&seed) % 60;
        switch (i % 7) {
        case 0: MPI_Put(&one, 1, MPI_LONG, t, slot, 1, MPI_LONG, win); break;
        case 1: MPI_Get(buf, 2, MPI_LONG, t, slot, 2, MPI_LONG, win); break;
        case 2: MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win); sent_increments++; break;
        case 3: MPI_Fetch_and_op(&one, &result, MPI_LONG, t, 0, MPI_SUM, win); sent_increments++; break;
        case 4: {
            /* A CAS on a private slot of the target, so the swap must win. */
            long expect = 0, one_more = 1;
            MPI_Aint mine = 61 + rank % 3;
            MPI_Compare_and_swap(&one_more, &expect, &result, MPI_LONG, t, mine, win);
            MPI_Win_flush(t, win);
            MPI_Compare_and_swap(&expect, &one_more, &result, MPI_LONG, t, mine, win);
            break;
        }
        case 5: {
            MPI_Request req;
            MPI_Rput(&one, 1, MPI_LONG, t, slot, 1, MPI_LONG, win, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            break;
        }
        case 6: {
            MPI_Request req;
            MPI_Rget_accumulate(&one, 1, MPI_LONG, &result, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            sent_increments++;
            break;
        }
        }
        if (i % 64 == 63)
            MPI_Win_flush_all(win);
    }
    MPI_Win_unlock_all(win);
    long total = 0;
    MPI_Allreduce(&sent_increments, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long landed = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    long mine_count = mem[0];
    MPI_Win_unlock(rank, win);
    MPI_Allreduce(&mine_count, &landed, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(landed == total, "%ld increments landed, %ld sent", landed, total);
    MPI_Win_free(&win);
    return total;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long ops = argc > 1 ? atol(argv[1]) : 1000000;
    long per_rank = ops / size;
    int once = argc > 2 && strcmp(argv[2], "once") == 0;
    run(per_rank, rank, size, 7 + rank); /* up to every high-water mark */
    long before = rss_kb();
    double t0 = MPI_Wtime();
    if (!once)
        run(per_rank, rank, size, 11 + rank);
    double secs = MPI_Wtime() - t0;
    long after = rss_kb();
    printf("rank %d: %ld ops in %.2f s, rss_kb before %ld after %ld\n", rank, per_rank, secs, before, after);
    check_summary();
    MPI_Finalize();
    return 0;
}

/* Compute and communication phases under GHOST_ASYNC=auto. Compute phases
 * spin outside MPI; communication phases run accumulate+flush to every rank
 * for the same time. Each phase ends with a fence, where the window agrees
 * on the ranks' votes. Every rank then reads the window's state back, the
 * ranks check that they agree, and rank 0 prints one line per phase:
 * "phase P KIND -> on|off". Every rank prints "rank R issued N operations"
 * at the end. The accumulated totals are checked exactly.
 * Usage: phases [phases] [phase_ms] */
#include "check.h"
#include "async_state.h"
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int phases = argc > 1 ? atoi(argv[1]) : 4;
    double phase_s = (argc > 2 ? atof(argv[2]) : 300) / 1000;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *mem;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    *mem = 0;
    MPI_Win_fence(0, win);
    long sent = 0, one = 1;
    for (int p = 0; p < phases; p++) {
        int comm = p % 2 == 1;
        double t0 = MPI_Wtime();
        if (comm) {
            MPI_Win_lock_all(0, win);
            while (MPI_Wtime() - t0 < phase_s) {
                for (int t = 0; t < size; t++)
                    MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win);
                MPI_Win_flush_all(win);
                sent++;
            }
            MPI_Win_unlock_all(win);
        } else {
            compute_until(t0 + phase_s);
        }
        MPI_Win_fence(0, win);
        int on = state_on(win), all[64];
        MPI_Allgather(&on, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        for (int r = 1; r < size && r < 64; r++)
            CHECK(all[r] == all[0], "phase %d: rank %d has state %d, rank 0 has %d", p, r, all[r], all[0]);
        if (rank == 0) {
            printf("phase %d %s -> %s\n", p, comm ? "comm" : "compute", on ? "on" : "off");
            fflush(stdout);
        }
    }
    long total = 0;
    MPI_Allreduce(&sent, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d issued %ld operations\n", rank, sent * size);
    MPI_Win_fence(0, win);
    CHECK(*mem == total, "accumulated %ld, sent %ld", *mem, total);
    MPI_Win_free(&win);
    check_summary();
    MPI_Finalize();
    return 0;
}

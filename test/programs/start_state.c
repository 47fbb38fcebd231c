/* The state GHOST_ASYNC=auto gives a window at its allocation, before any
 * rank has measured anything: every rank reads it back (MPI_Win_get_info),
 * the ranks check that they agree, and rank 0 prints "start on" or "start
 * off". Every rank then accumulates into every rank, and the totals are
 * checked exactly, in whichever state the window is.
 * Usage: start_state */
#include "async_state.h"
#include "check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *mem;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    int on = state_on(win), all_on = 0;
    MPI_Allreduce(&on, &all_on, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all_on == 0 || all_on == size, "rank %d reads the window %s, but %d of %d ranks read it on", rank,
          on ? "on" : "off", all_on, size);
    if (rank == 0)
        printf("start %s\n", on ? "on" : "off");
    *mem = 0;
    MPI_Win_fence(0, win);
    long one = 1;
    for (int t = 0; t < size; t++)
        MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_fence(0, win);
    CHECK(*mem == size, "rank %d counted %ld accumulates, want %d", rank, *mem, size);
    MPI_Win_free(&win);
    check_summary();
    MPI_Finalize();
    return 0;
}

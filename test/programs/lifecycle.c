/* Ways a job ends. argv[1] selects one:
 *   exit N   every rank finalizes, then user rank 0 exits with status N
 *   abort N  user rank 1 calls MPI_Abort(MPI_COMM_WORLD, N) while the others
 *            wait in a barrier that can never complete
 *   compute S  every rank computes S seconds outside MPI, then finalizes
 *            (used to measure what an idle ghost costs)
 *   window S   the same inside a passive epoch on a window that every rank
 *            allocated, whose redirection the job's GHOST_ASYNC sets: with
 *            it off, the ghosts serve the window but get no traffic */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "exit";
    int n = argc > 2 ? atoi(argv[2]) : 0;
    if (strcmp(mode, "abort") == 0) {
        if (rank == 1)
            MPI_Abort(MPI_COMM_WORLD, n);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "compute") == 0 || strcmp(mode, "window") == 0) {
        int window = strcmp(mode, "window") == 0;
        long *base;
        MPI_Win win;
        if (window) {
            MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
            MPI_Win_lock_all(0, win);
        }
        double t0 = MPI_Wtime();
        volatile double x = 0;
        while (MPI_Wtime() - t0 < n) /* MPI_Wtime is not a progress call */
            for (int i = 0; i < 100000; i++)
                x += i * 0.5;
        if (window) {
            MPI_Win_unlock_all(win);
            MPI_Win_free(&win);
        }
        printf("rank %d computed\n", rank);
    }
    MPI_Finalize();
    if (strcmp(mode, "exit") == 0 && rank == 0)
        return n;
    return 0;
}

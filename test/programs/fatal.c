/* Errors under MPI_ERRORS_ARE_FATAL, raised by user rank 1 while the other
 * ranks wait in a barrier that cannot complete. argv[1] selects the call:
 *   send    MPI_Send to a rank outside MPI_COMM_WORLD
 *   dup     the same on a duplicate of MPI_COMM_WORLD
 *   win     MPI_Win_lock on a rank outside an MPI_Win_allocate window
 *   return  the send on MPI_COMM_WORLD under MPI_ERRORS_RETURN: the error
 *           comes back, and the job ends normally
 * Every rank first checks that MPI_COMM_WORLD and its duplicate report
 * MPI_ERRORS_ARE_FATAL. */
#include "check.h"

#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "send";
    MPI_Win win;
    int *base;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD's errhandler is %#x", (unsigned)eh);
    MPI_Comm_get_errhandler(dup, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "its duplicate's errhandler is %#x", (unsigned)eh);
    MPI_Win_get_errhandler(win, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "the window's errhandler is %#x", (unsigned)eh);
    if (strcmp(mode, "return") == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD), class = -1;
        MPI_Error_class(rc, &class);
        CHECK(class == MPI_ERR_RANK, "MPI_Send to rank %d returned class %d", size + 5, class);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
        CHECK(eh == MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD's errhandler set back is %#x", (unsigned)eh);
        MPI_Win_free(&win);
        MPI_Comm_free(&dup);
        check_summary();
        MPI_Finalize();
        return 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        printf("rank 1: the fatal call\n");
        fflush(stdout);
        if (strcmp(mode, "send") == 0)
            MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
        else if (strcmp(mode, "dup") == 0)
            MPI_Send(&x, 1, MPI_INT, size + 5, 0, dup);
        else
            MPI_Win_lock(MPI_LOCK_SHARED, size + 5, 0, win);
        printf("rank 1: the error returned\n");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

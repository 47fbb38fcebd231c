/* Sets Ghost's variables in the program itself, before MPI_Init, as a
 * program may set its MPI's: GHOST_NG=1 and GHOST_VERBOSE=info. Ghost
 * reads its configuration at MPI_Init, so one process of the node becomes
 * a ghost and the world the program sees is one process smaller than the
 * job (argv[1]). */
#include "check.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    setenv("GHOST_NG", "1", 1);
    setenv("GHOST_VERBOSE", "info", 1);
    MPI_Init(&argc, &argv);
    int size, job = argc > 1 ? atoi(argv[1]) : 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == job - 1, "world of %d processes in a job of %d, want %d", size, job, job - 1);
    check_summary();
    MPI_Finalize();
    return 0;
}

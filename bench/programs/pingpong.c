/* Ping-pong of 8-byte messages between ranks 0 and 1: rank 0 prints the
 * mean time of a message (half a round trip) in microseconds, over
 * argv[1] round trips (default 20000), three times. bench/user-doze.sh
 * runs it beside a busy loop, where the two ranks' waits are long whenever
 * the loop holds the other rank's core. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n = argc > 1 ? atoi(argv[1]) : 20000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char buf[8] = {0};
    for (int rep = 0; rep < 3; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
            }
        }
        if (rank == 0)
            printf("message_us %.3f\n", (MPI_Wtime() - t0) / n / 2 * 1e6);
    }
    MPI_Finalize();
    return 0;
}

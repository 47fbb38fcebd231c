/* Fence assertions: NOPRECEDE on the first fence, NOSTORE where no local
 * store happened in the epoch, NOPUT on fences that open get-only epochs,
 * NOSUCCEED on the last; a put epoch, then a get-only epoch that reads it
 * back, then a local-store epoch, then a get-only epoch that reads those. */
#include "rma.h"

#define K 6
int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int *w = alloc_win(2 * K * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np, buf[K], got[K], want[K];
    for (int i = 0; i < 2 * K; i++)
        w[i] = -1;

    cur_mode = "put epoch";
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int i = 0; i < K; i++)
        buf[i] = me * 100 + i;
    MPI_Put(buf, K, MPI_INT, right, 0, K, MPI_INT, win);
    /* closes the put epoch; no local store in it; the next epoch only gets */
    MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win);
    for (int i = 0; i < K; i++)
        want[i] = left * 100 + i;
    check_ints(w, want, K, "put arrived");

    cur_mode = "get-only epoch";
    MPI_Get(got, K, MPI_INT, right, 0, K, MPI_INT, win); /* right holds what I put */
    MPI_Win_fence(MPI_MODE_NOSTORE, win);
    for (int i = 0; i < K; i++)
        want[i] = me * 100 + i;
    check_ints(got, want, K, "get back own put");

    cur_mode = "local store epoch";
    for (int i = 0; i < K; i++)
        w[K + i] = -(me * 100 + i); /* local stores: no NOSTORE on the next fence */
    MPI_Win_fence(MPI_MODE_NOPUT, win);

    cur_mode = "get local stores";
    MPI_Get(got, K, MPI_INT, left, K, K, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOSUCCEED, win);
    for (int i = 0; i < K; i++)
        want[i] = -(left * 100 + i);
    check_ints(got, want, K, "get of left's local stores");
    for (int i = 0; i < K; i++)
        want[i] = left * 100 + i;
    check_ints(w, want, K, "window intact");
    MPI_Win_free(&win);
    return rma_finish();
}

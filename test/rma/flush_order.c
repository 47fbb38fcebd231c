/* What each flush guarantees: Put, flush, then Get of the same location
 * sees the put (within lock, lock_all and to oneself); flush_local makes
 * the origin buffer reusable while the data still arrives intact;
 * flush_local_all makes Get results usable; flush_all completes puts to
 * every target, which then check with plain loads; flushes with nothing
 * pending, and repeated flushes, are harmless. */
#include "rma.h"

#define K 16
enum { SLOT = 0, WN = 5 * K };
int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Win win;
    int *w = alloc_win(WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np;
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < WN; i++)
        w[i] = -1;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int pb[K], gb[K], want[K];

    cur_mode = "lock: put, flush, get";
    for (int r = 0; r < rounds; r++) {
        int t = (me + r) % np; /* itself included */
        for (int i = 0; i < K; i++)
            want[i] = pb[i] = 10000 * r + 100 * me + i;
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        MPI_Put(pb, K, MPI_INT, t, (me + 1) * K, K, MPI_INT, win);
        MPI_Win_flush(t, win);
        MPI_Get(gb, K, MPI_INT, t, (me + 1) * K, K, MPI_INT, win);
        MPI_Win_flush(t, win);
        check_ints(gb, want, K, "get after flushed put");
        MPI_Win_flush(t, win); /* nothing pending */
        MPI_Win_flush(t, win);
        MPI_Win_unlock(t, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "lock_all: flush_local reuse, flush_all, loads";
    MPI_Win_lock_all(0, win);
    MPI_Win_flush_all(win); /* nothing pending */
    for (int r = 0; r < rounds; r++) {
        for (int t = 0; t < np; t++) {
            for (int i = 0; i < K; i++)
                pb[i] = 20000 * (r + 1) + 100 * me + 10 * t + i;
            MPI_Put(pb, K, MPI_INT, t, (me + 1) * K, K, MPI_INT, win);
            MPI_Win_flush_local(t, win);
            for (int i = 0; i < K; i++)
                pb[i] = -5; /* the put must not see this */
        }
        MPI_Win_flush_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_sync(win);
        for (int o = 0; o < np; o++) {
            for (int i = 0; i < K; i++)
                want[i] = 20000 * (r + 1) + 100 * o + 10 * me + i;
            check_ints(w + (o + 1) * K, want, K, "loads after flush_all + barrier");
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    cur_mode = "lock_all: flush_local_all gets";
    int g4[4][K];
    for (int t = 0; t < np; t++)
        MPI_Get(g4[t], K, MPI_INT, t, (me + 1) * K, K, MPI_INT, win);
    MPI_Win_flush_local_all(win);
    for (int t = 0; t < np; t++) {
        for (int i = 0; i < K; i++)
            want[i] = 20000 * rounds + 100 * me + 10 * t + i;
        check_ints(g4[t], want, K, "gets after flush_local_all");
    }
    MPI_Win_unlock_all(win);
    (void)right;
    MPI_Win_free(&win);
    return rma_finish();
}

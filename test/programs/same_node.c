/*
 * PUT and GET to a target on the origin's own node, in a window that spans
 * nodes: in lock and lock_all epochs, whose lock words Ghost holds from the
 * lock call on, Ghost copies in the node segment instead of going through
 * the ghost (c/rma.c, same_node_direct). Run on 2 fake nodes with 2 users
 * each; rank r's peer is the other user of its node, its remote the rank
 * with the same place on the other node.
 *
 * Per rank, all of type int, each checked:
 *   lock_all: 1 PUT to the peer, a flush, then N PUTs and N GETs to the
 *     peer (local) and N PUTs to the remote (ghost);
 *   N exclusive locks on the peer and N on itself, each a read-modify-write
 *     of one counter (a GET, a flush, a PUT), all local.
 * So per rank: PUT local 3N + 1, ghost N; GET local 3N, ghost 0
 * (test/direct_test.go checks them in the metrics).
 * argv[1]: N (default 20). */
#include "check.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 20;
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nme, nsize;
    MPI_Comm_rank(node, &nme);
    MPI_Comm_size(node, &nsize);
    CHECK(size == 4 && nsize == 2, "want 4 ranks, 2 per node: %d ranks, %d on this node", size, nsize);
    int peer = me ^ 1, remote = (me + 2) % size; /* ranks 0,1 on one node, 2,3 on the other */

    int *base;
    MPI_Win win;
    MPI_Win_allocate(4 * n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4 * n; i++)
        base[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);

    /* lock_all: slots [0, n) are written by the peer, [n, 2n) by the
     * remote; [2n, 3n) hold the owner's own values for GETs. */
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < n; i++)
        base[2 * n + i] = 1000 * me + i;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int first = 7;
    MPI_Put(&first, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
    MPI_Win_flush(peer, win);
    /* A PUT's origin buffer may be read until the operation completes,
     * and the remote's PUTs complete only at unlock_all: one buffer each. */
    int *w = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        int v = 100000 + 1000 * me + i, got = -2;
        MPI_Put(&v, 1, MPI_INT, peer, i, 1, MPI_INT, win);
        MPI_Get(&got, 1, MPI_INT, peer, 2 * n + i, 1, MPI_INT, win);
        MPI_Win_flush(peer, win);
        CHECK(got == 1000 * peer + i, "GET %d from the peer: %d, want %d", i, got, 1000 * peer + i);
        w[i] = 200000 + 1000 * me + i;
        MPI_Put(&w[i], 1, MPI_INT, remote, n + i, 1, MPI_INT, win);
    }
    MPI_Win_unlock_all(win);
    free(w);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    int from_remote = (me + 2) % size;
    for (int i = 0; i < n; i++) {
        CHECK(base[i] == 100000 + 1000 * peer + i, "slot %d: %d, want the peer's %d", i, base[i],
              100000 + 1000 * peer + i);
        CHECK(base[n + i] == 200000 + 1000 * from_remote + i, "slot %d: %d, want the remote's %d", n + i,
              base[n + i], 200000 + 1000 * from_remote + i);
    }

    /* Exclusive locks: both users of a node increment counter 3n on each
     * other's segment and on their own, by read-modify-write. */
    base[3 * n] = 0;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        int targets[2] = {peer, me};
        for (int k = 0; k < 2; k++) {
            int t = targets[k], v = -1;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
            MPI_Get(&v, 1, MPI_INT, t, 3 * n, 1, MPI_INT, win);
            MPI_Win_flush(t, win);
            v++;
            MPI_Put(&v, 1, MPI_INT, t, 3 * n, 1, MPI_INT, win);
            MPI_Win_unlock(t, win);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    CHECK(base[3 * n] == 2 * n, "counter under exclusive locks: %d, want %d", base[3 * n], 2 * n);
    MPI_Win_unlock(me, win);

    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    check_summary();
    MPI_Finalize();
    return 0;
}

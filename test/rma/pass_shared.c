/* Pass-through: MPI_Win_allocate_shared on each node's ranks (the node
 * communicator from MPI_Comm_split_type, which must hold user ranks only):
 * MPI_Win_shared_query gives every neighbour's segment, direct loads and
 * stores into a neighbour's memory (with Win_sync and barriers), and RMA
 * through the same window. Also the noncontig hint. Flavor SHARED. */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    int nr, nn;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &nn);
    for (int variant = 0; variant < 2; variant++) {
        cur_mode = variant ? "alloc_shared_noncontig" : "contiguous";
        MPI_Info info = MPI_INFO_NULL;
        if (variant) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "alloc_shared_noncontig", "true");
        }
        int *mine;
        MPI_Win win;
        MPI_Win_allocate_shared(16 * sizeof(int), sizeof(int), info, node, &mine, &win);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        int *flavor, flag;
        MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
        CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "flavor %d", *flavor);
        int right = (nr + 1) % nn, left = (nr + nn - 1) % nn;
        MPI_Aint sz;
        int du;
        int *rmem;
        MPI_Win_shared_query(win, right, &sz, &du, &rmem);
        CHECK(sz == 16 * sizeof(int) && du == sizeof(int), "shared_query size %ld unit %d", (long)sz, du);
        int *own;
        MPI_Win_shared_query(win, nr, &sz, &du, &own);
        CHECK(own == mine, "shared_query of myself %p, base %p", (void *)own, (void *)mine);

        MPI_Win_lock_all(0, win);
        for (int i = 0; i < 16; i++)
            mine[i] = 0;
        MPI_Win_sync(win);
        MPI_Barrier(node);
        for (int i = 0; i < 4; i++)
            rmem[i] = 100 * nr + i; /* store into the right neighbour's memory */
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        for (int i = 0; i < 4; i++)
            CHECK(mine[i] == 100 * left + i, "store from node rank %d [%d] = %d", left, i, mine[i]);
        int one = 1, got = -1;
        MPI_Accumulate(&one, 1, MPI_INT, 0, 8, 1, MPI_INT, MPI_SUM, win);
        MPI_Put(&nr, 1, MPI_INT, right, 9, 1, MPI_INT, win);
        MPI_Win_flush_all(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        MPI_Get(&got, 1, MPI_INT, left, 9, 1, MPI_INT, win);
        MPI_Win_flush(left, win);
        int want_left_of_left = (left + nn - 1) % nn;
        CHECK(got == want_left_of_left, "get %d", got);
        CHECK(mine[9] == left, "put from left, loaded: %d", mine[9]);
        if (nr == 0)
            CHECK(mine[8] == nn, "accumulate %d", mine[8]);
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
    }
    MPI_Comm_free(&node);
    return rma_finish();
}

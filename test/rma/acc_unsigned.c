/* MPI_MAX and MPI_MIN accumulates on unsigned integer types with the high
 * bit set. MPICH 4.0.2 (Debian build) compares them as signed in RMA
 * accumulates (MPI_Allreduce is right), so 0xfffffff0 MAX 7 gives 7; this
 * program checks the correct unsigned result, targeting itself and its
 * right neighbour, and checks MPI_Allreduce agrees. */
#include "rma.h"

/* one check per type and op, over this rank and its right neighbour */
#define T(CT, MT, OP, HI, IDX)                                                                     \
    do {                                                                                           \
        CT v = (CT)(HI), want = (OP == MPI_MAX) ? (v > (CT)7 ? v : (CT)7) : (v < (CT)7 ? v : (CT)7); \
        CT red, got[2] = {0, 0}, seven = 7;                                                        \
        MPI_Allreduce(&v, &red, 1, MT, OP, MPI_COMM_WORLD);                                        \
        CHECK(red == v, "%s %s: allreduce wrong", #MT, #OP);                                        \
        for (int k = 0; k < 2; k++) {                                                              \
            int t = (me + k) % np;                                                                 \
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);                                           \
            MPI_Put(&seven, 1, MT, t, (IDX) * 8, 1, MT, win);                                       \
            MPI_Win_flush(t, win);                                                                 \
            MPI_Accumulate(&v, 1, MT, t, (IDX) * 8, 1, MT, OP, win);                                \
            MPI_Win_flush(t, win);                                                                 \
            MPI_Get(&got[k], 1, MT, t, (IDX) * 8, 1, MT, win);                                      \
            MPI_Win_unlock(t, win);                                                                \
        }                                                                                          \
        CHECK(got[0] == want && got[1] == want, "%s %s on rank %d and %d: %llu %llu, want %llu",    \
              #MT, #OP, me, (me + 1) % np, (unsigned long long)got[0], (unsigned long long)got[1],  \
              (unsigned long long)want);                                                           \
    } while (0)

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    /* 8 bytes per case, one block of cases per origin */
    char *w = alloc_win(16 * 8 * np, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    (void)w;
    int b = me * 16;
    T(unsigned char, MPI_UNSIGNED_CHAR, MPI_MAX, 0xf0, b + 0);
    T(unsigned short, MPI_UNSIGNED_SHORT, MPI_MAX, 0xfff0, b + 1);
    T(unsigned, MPI_UNSIGNED, MPI_MAX, 0xfffffff0u, b + 2);
    T(unsigned long, MPI_UNSIGNED_LONG, MPI_MAX, ~0UL - 5, b + 3);
    T(uint8_t, MPI_UINT8_T, MPI_MAX, 0xf0, b + 4);
    T(uint32_t, MPI_UINT32_T, MPI_MAX, 0xfffffff0u, b + 5);
    T(uint64_t, MPI_UINT64_T, MPI_MAX, ~0ULL - 5, b + 6);
    T(unsigned, MPI_UNSIGNED, MPI_MIN, 0xfffffff0u, b + 7);
    T(uint64_t, MPI_UINT64_T, MPI_MIN, ~0ULL - 5, b + 8);
    MPI_Win_free(&win);
    return rma_finish();
}

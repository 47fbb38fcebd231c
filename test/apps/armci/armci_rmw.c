/* ARMCI-MPI read-modify-write: ARMCI_Rmw fetch-and-add (int and long) and
 * swap on counters held by every rank, and ARMCI mutexes guarding a
 * non-atomic get-increment-put. The counters sit in 4- and 8-byte
 * ARMCI_Malloc segments (MPICH 4.0.2's small-window case). Checks: every
 * final counter is exact, the values fetched from each counter are exactly
 * 0, 1, ..., total-1 (each handed out once), and swaps lose no value. */
#include "armci_check.h"
#include <string.h>

#define K 200

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* All fetched values of one counter, from every rank, must be a
 * permutation of start, start+step, ..., start+(total-1)*step. */
static void check_permutation(const char *what, long *mine, int n, long step, int target)
{
    long *all = me == 0 ? malloc(sizeof(long) * n * nproc) : NULL;
    MPI_Gather(mine, n, MPI_LONG, all, n, MPI_LONG, 0, MPI_COMM_WORLD);
    if (me != 0)
        return;
    qsort(all, (size_t)n * nproc, sizeof(long), cmp_long);
    int bad = 0;
    for (long i = 0; i < (long)n * nproc; i++)
        if (all[i] != i * step) {
            if (!bad)
                CHECK(all[i] == i * step, "%s on rank %d: sorted fetched value %ld is %ld", what, target, i, all[i]);
            bad = 1;
        }
    if (!bad)
        CHECK(1, "%s", what);
    free(all);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    void **ip = malloc(nproc * sizeof(void *)), **lp = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(ip, sizeof(int));
    ARMCI_Malloc(lp, sizeof(long));
    int *icnt = ip[me];
    long *lcnt = lp[me];
    ARMCI_Access_begin(icnt);
    *icnt = 0;
    ARMCI_Access_end(icnt);
    ARMCI_Access_begin(lcnt);
    *lcnt = 0;
    ARMCI_Access_end(lcnt);
    ARMCI_Barrier();

    long *fetched = malloc(sizeof(long) * K);
    /* Fetch-and-add on every rank's int counter, in turn: all ranks
     * hammer the same counter at the same time. */
    for (int t = 0; t < nproc; t++) {
        for (int i = 0; i < K; i++) {
            int old = -1;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, ip[t], 1, t);
            fetched[i] = old;
        }
        ARMCI_Barrier();
        check_permutation("fetch_and_add int", fetched, K, 1, t);
    }
    ARMCI_Barrier();
    ARMCI_Access_begin(icnt);
    CHECK(*icnt == nproc * K, "int counter %d, want %d", *icnt, nproc * K);
    ARMCI_Access_end(icnt);

    /* Fetch-and-add long, step 3, everyone on every counter at once. */
    for (int i = 0; i < K; i++) {
        int t = (me + i) % nproc;
        long old = -1;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, lp[t], 3, t);
        (void)old;
    }
    ARMCI_Barrier();
    ARMCI_Access_begin(lcnt);
    /* Rank t receives one op from each rank for every i with (r+i)%nproc == t. */
    long want = 0;
    for (int r = 0; r < nproc; r++)
        for (int i = 0; i < K; i++)
            if ((r + i) % nproc == me)
                want += 3;
    CHECK(*lcnt == want, "long counter %ld, want %ld", *lcnt, want);
    ARMCI_Access_end(lcnt);

    /* Swap: everyone swaps distinct values into rank 0's int counter; the
     * fetched values plus the final one are the initial value plus all the
     * swapped-in ones. */
    ARMCI_Barrier();
    if (me == 0) {
        ARMCI_Access_begin(icnt);
        *icnt = -1;
        ARMCI_Access_end(icnt);
    }
    ARMCI_Barrier();
    long sum_in = 0, sum_out = 0;
    for (int i = 0; i < K; i++) {
        int v = me * K + i;
        ARMCI_Rmw(ARMCI_SWAP, &v, ip[0], 0, 0);
        sum_in += me * K + i;
        sum_out += v;
    }
    long tot_in, tot_out;
    MPI_Allreduce(&sum_in, &tot_in, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&sum_out, &tot_out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    ARMCI_Barrier();
    if (me == 0) {
        ARMCI_Access_begin(icnt);
        CHECK(-1 + tot_in == tot_out + *icnt, "swap: initial+in %ld != fetched+final %ld", -1 + tot_in, tot_out + *icnt);
        ARMCI_Access_end(icnt);
    }

    /* Mutexes: a non-atomic get, +1, put on rank (nproc-1)'s long counter,
     * under ARMCI mutex 1 of rank 0. */
    ARMCI_Create_mutexes(2);
    int tgt = nproc - 1;
    ARMCI_Barrier();
    if (me == tgt) {
        ARMCI_Access_begin(lcnt);
        *lcnt = 0;
        ARMCI_Access_end(lcnt);
    }
    ARMCI_Barrier();
    for (int i = 0; i < K / 4; i++) {
        long v;
        ARMCI_Lock(1, 0);
        ARMCI_Get(lp[tgt], &v, sizeof(long), tgt);
        v++;
        ARMCI_Put(&v, lp[tgt], sizeof(long), tgt);
        ARMCI_Fence(tgt);
        ARMCI_Unlock(1, 0);
    }
    ARMCI_Barrier();
    if (me == tgt) {
        ARMCI_Access_begin(lcnt);
        CHECK(*lcnt == (long)nproc * (K / 4), "mutex counter %ld, want %ld", *lcnt, (long)nproc * (K / 4));
        ARMCI_Access_end(lcnt);
    }
    ARMCI_Barrier();
    ARMCI_Destroy_mutexes();

    ARMCI_Free(icnt);
    ARMCI_Free(lcnt);
    free(fetched);
    return finish();
}

/* ARMCI-MPI contiguous put, get and accumulate between every pair of ranks,
 * on segments of 4, 12, 16 and 4096 bytes per rank. The small ones are
 * MPICH 4.0.2's small-window case: ARMCI_Malloc is MPI_Win_allocate, which
 * packs tiny per-rank segments off a 16-byte boundary, and intranode RMA
 * then lands in the wrong place. Every value read back is checked. */
#include "armci_check.h"
#include <string.h>

#define REPS 5

static int pattern(int origin, int i) { return 1000 * (origin + 1) + i; }

static void test_int(int n)
{
    size_t bytes = n * sizeof(int);
    void **ptrs = malloc(nproc * sizeof(void *));
    int *buf = malloc(bytes);
    ARMCI_Malloc(ptrs, bytes);
    int *mine = ptrs[me];
    int right = (me + 1) % nproc, left = (me + nproc - 1) % nproc;

    ARMCI_Access_begin(mine);
    for (int i = 0; i < n; i++) mine[i] = -1;
    ARMCI_Access_end(mine);
    ARMCI_Barrier();

    /* PUT my pattern into my right neighbour. */
    for (int i = 0; i < n; i++) buf[i] = pattern(me, i);
    ARMCI_Put(buf, ptrs[right], bytes, right);
    ARMCI_Barrier();
    ARMCI_Access_begin(mine);
    for (int i = 0; i < n; i++)
        CHECK(mine[i] == pattern(left, i), "n=%d put: mine[%d]=%d, want %d", n, i, mine[i], pattern(left, i));
    ARMCI_Access_end(mine);

    /* GET back what I put into my right neighbour. */
    memset(buf, 0, bytes);
    ARMCI_Get(ptrs[right], buf, bytes, right);
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == pattern(me, i), "n=%d get: buf[%d]=%d, want %d", n, i, buf[i], pattern(me, i));

    /* Non-blocking PUT to myself, then GET it back. */
    ARMCI_Barrier();
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    for (int i = 0; i < n; i++) buf[i] = pattern(me, i) + 7;
    ARMCI_NbPut(buf, mine, bytes, me, &h);
    ARMCI_Wait(&h);
    memset(buf, 0, bytes);
    ARMCI_Get(mine, buf, bytes, me);
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == pattern(me, i) + 7, "n=%d self nbput/get: buf[%d]=%d", n, i, buf[i]);
    ARMCI_Barrier();

    /* ACC: everyone adds (i+1)*(me+1) into everyone, REPS times. */
    ARMCI_Access_begin(mine);
    for (int i = 0; i < n; i++) mine[i] = 0;
    ARMCI_Access_end(mine);
    ARMCI_Barrier();
    for (int i = 0; i < n; i++) buf[i] = i + 1;
    int scale = me + 1;
    for (int rep = 0; rep < REPS; rep++)
        for (int k = 0; k < nproc; k++) {
            int t = (me + k) % nproc;
            ARMCI_Acc(ARMCI_ACC_INT, &scale, buf, ptrs[t], bytes, t);
        }
    ARMCI_Barrier();
    int sumscale = nproc * (nproc + 1) / 2;
    ARMCI_Access_begin(mine);
    for (int i = 0; i < n; i++)
        CHECK(mine[i] == REPS * (i + 1) * sumscale, "n=%d acc: mine[%d]=%d, want %d", n, i, mine[i], REPS * (i + 1) * sumscale);
    ARMCI_Access_end(mine);

    /* Single-value put/get. */
    ARMCI_Barrier();
    ARMCI_PutValueInt(4242 + me, (int *)ptrs[right] + n - 1, right);
    ARMCI_Barrier();
    int v = ARMCI_GetValueInt((int *)ptrs[me] + n - 1, me);
    CHECK(v == 4242 + left, "n=%d putvalue: got %d, want %d", n, v, 4242 + left);

    ARMCI_Barrier();
    ARMCI_Free(mine);
    free(buf);
    free(ptrs);
}

static void test_double_acc(int n)
{
    size_t bytes = n * sizeof(double);
    void **ptrs = malloc(nproc * sizeof(void *));
    double *buf = malloc(bytes);
    ARMCI_Malloc(ptrs, bytes);
    double *mine = ptrs[me];
    ARMCI_Access_begin(mine);
    for (int i = 0; i < n; i++) mine[i] = 0.5;
    ARMCI_Access_end(mine);
    ARMCI_Barrier();
    for (int i = 0; i < n; i++) buf[i] = 0.25 * (i % 64 + 1);
    double scale = 2.0 * (me + 1);
    for (int rep = 0; rep < REPS; rep++)
        for (int k = 0; k < nproc; k++) {
            int t = (me + k) % nproc;
            ARMCI_Acc(ARMCI_ACC_DBL, &scale, buf, ptrs[t], bytes, t);
        }
    ARMCI_Barrier();
    double sumscale = nproc * (nproc + 1);
    ARMCI_Access_begin(mine);
    for (int i = 0; i < n; i++) {
        double want = 0.5 + REPS * sumscale * 0.25 * (i % 64 + 1);
        CHECK(mine[i] == want, "n=%d acc dbl: mine[%d]=%g, want %g", n, i, mine[i], want);
    }
    ARMCI_Access_end(mine);
    ARMCI_Barrier();
    ARMCI_Free(mine);
    free(buf);
    free(ptrs);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int sizes[] = {1, 3, 4, 1024};
    for (int s = 0; s < 4; s++)
        test_int(sizes[s]);
    test_double_acc(2);
    test_double_acc(512);
    return finish();
}

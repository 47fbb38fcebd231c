/* ARMCI-MPI strided put, get and accumulate (ARMCI_PutS/GetS/AccS) on 2-D
 * and 3-D patches of every rank's block, with one and two stride levels,
 * plus a 2-D patch of a 12-byte block (MPICH 4.0.2's small-window case).
 * Every element of every block is checked, inside the patch and outside. */
#include "armci_check.h"
#include <string.h>

#define REPS 3

static double val(int rank, int i) { return 1e4 * (rank + 1) + i; }

/* A block of D x R x C doubles; a patch of pd x pr x pc starting at
 * (d0, r0, c0). levels = 1 uses the first plane only (2-D). */
static void test_patch(int D, int R, int C, int d0, int r0, int c0, int pd, int pr, int pc)
{
    int levels = D > 1 ? 2 : 1;
    size_t n = (size_t)D * R * C, bytes = n * sizeof(double);
    void **ptrs = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(ptrs, bytes);
    double *mine = ptrs[me];
    int right = (me + 1) % nproc, left = (me + nproc - 1) % nproc;
    int np = pd * pr * pc;
    double *buf = malloc(np * sizeof(double));
    int src_stride[2] = {pc * (int)sizeof(double), pr * pc * (int)sizeof(double)};
    int dst_stride[2] = {C * (int)sizeof(double), R * C * (int)sizeof(double)};
    int count[3] = {pc * (int)sizeof(double), pr, pd};
    size_t off = ((size_t)d0 * R + r0) * C + c0;
#define INPATCH(d, r, c) ((d) >= d0 && (d) < d0 + pd && (r) >= r0 && (r) < r0 + pr && (c) >= c0 && (c) < c0 + pc)
#define PIDX(d, r, c) ((((d) - d0) * pr + ((r) - r0)) * pc + ((c) - c0))

    ARMCI_Access_begin(mine);
    for (size_t i = 0; i < n; i++) mine[i] = -1.0;
    ARMCI_Access_end(mine);
    ARMCI_Barrier();

    /* PutS my values into my right neighbour's patch. */
    for (int i = 0; i < np; i++) buf[i] = val(me, i);
    ARMCI_PutS(buf, src_stride, (double *)ptrs[right] + off, dst_stride, count, levels, right);
    ARMCI_Barrier();
    ARMCI_Access_begin(mine);
    for (int d = 0; d < D; d++)
        for (int r = 0; r < R; r++)
            for (int c = 0; c < C; c++) {
                double got = mine[((size_t)d * R + r) * C + c];
                double want = INPATCH(d, r, c) ? val(left, PIDX(d, r, c)) : -1.0;
                CHECK(got == want, "%dx%dx%d puts: [%d,%d,%d]=%g, want %g", D, R, C, d, r, c, got, want);
            }
    ARMCI_Access_end(mine);

    /* GetS the patch back from my right neighbour. */
    memset(buf, 0, np * sizeof(double));
    ARMCI_GetS((double *)ptrs[right] + off, dst_stride, buf, src_stride, count, levels, right);
    for (int i = 0; i < np; i++)
        CHECK(buf[i] == val(me, i), "%dx%dx%d gets: buf[%d]=%g, want %g", D, R, C, i, buf[i], val(me, i));
    ARMCI_Barrier();

    /* AccS: everyone adds scale*(i+1) into everyone's patch, REPS times. */
    ARMCI_Access_begin(mine);
    for (size_t i = 0; i < n; i++) mine[i] = 0.0;
    ARMCI_Access_end(mine);
    ARMCI_Barrier();
    for (int i = 0; i < np; i++) buf[i] = i + 1;
    double scale = me + 1;
    for (int rep = 0; rep < REPS; rep++)
        for (int k = 0; k < nproc; k++) {
            int t = (me + k) % nproc;
            ARMCI_AccS(ARMCI_ACC_DBL, &scale, buf, src_stride, (double *)ptrs[t] + off, dst_stride, count, levels, t);
        }
    ARMCI_Barrier();
    double sumscale = nproc * (nproc + 1) / 2;
    ARMCI_Access_begin(mine);
    for (int d = 0; d < D; d++)
        for (int r = 0; r < R; r++)
            for (int c = 0; c < C; c++) {
                double got = mine[((size_t)d * R + r) * C + c];
                double want = INPATCH(d, r, c) ? REPS * sumscale * (PIDX(d, r, c) + 1) : 0.0;
                CHECK(got == want, "%dx%dx%d accs: [%d,%d,%d]=%g, want %g", D, R, C, d, r, c, got, want);
            }
    ARMCI_Access_end(mine);
    ARMCI_Barrier();
    ARMCI_Free(mine);
    free(buf);
    free(ptrs);
}

/* Integer AccS on a 3 x 1 block of ints (12 bytes per rank). */
static void test_small_int(void)
{
    void **ptrs = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(ptrs, 3 * sizeof(int));
    int *mine = ptrs[me];
    ARMCI_Access_begin(mine);
    mine[0] = mine[1] = mine[2] = 0;
    ARMCI_Access_end(mine);
    ARMCI_Barrier();
    int src[2] = {10, 20};
    int sst[1] = {sizeof(int)}, dst[1] = {2 * sizeof(int)};
    int count[2] = {sizeof(int), 2};
    int scale = me + 1;
    for (int k = 0; k < nproc; k++) {
        int t = (me + k) % nproc;
        ARMCI_AccS(ARMCI_ACC_INT, &scale, src, sst, ptrs[t], dst, count, 1, t);
    }
    ARMCI_Barrier();
    int s = nproc * (nproc + 1) / 2;
    ARMCI_Access_begin(mine);
    CHECK(mine[0] == 10 * s && mine[1] == 0 && mine[2] == 20 * s, "small int accs: %d %d %d, want %d 0 %d",
          mine[0], mine[1], mine[2], 10 * s, 20 * s);
    ARMCI_Access_end(mine);
    ARMCI_Barrier();
    ARMCI_Free(mine);
    free(ptrs);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    test_patch(1, 16, 24, 0, 3, 5, 1, 7, 9);   /* 2-D patch in a 3 KiB block */
    test_patch(1, 2, 1, 0, 0, 0, 1, 2, 1);     /* 2 x 1 doubles: 16 bytes */
    test_patch(6, 10, 12, 1, 2, 3, 4, 5, 6);   /* 3-D patch, two stride levels */
    test_small_int();
    return finish();
}

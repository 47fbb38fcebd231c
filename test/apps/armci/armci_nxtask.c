/* NWChem's NXTASK dynamic load balancing, written with ARMCI-MPI: a shared
 * task counter on rank 0 (ARMCI_Rmw fetch-and-add), and for each task
 * claimed: get the task's input block from its owner, compute, accumulate
 * the result into the owner's output block (get-compute-update), and count
 * the task as done there. Checks: every output element is exact and every
 * task ran exactly once. Rank 0 computes too, so under plain MPICH the
 * others' claims wait for it to call ARMCI again; under Ghost they do not.
 *
 * usage: armci_nxtask [ntasks [task_ms [block]]]   (default 96 4 512) */
#include "armci_check.h"
#include <string.h>

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int ntasks = argc > 1 ? atoi(argv[1]) : 96;
    double task_s = (argc > 2 ? atof(argv[2]) : 4) * 1e-3;
    int block = argc > 3 ? atoi(argv[3]) : 512;
    int slots = (ntasks + nproc - 1) / nproc;
    size_t bbytes = (size_t)block * sizeof(double);

    void **A = malloc(nproc * sizeof(void *)), **C = malloc(nproc * sizeof(void *));
    void **D = malloc(nproc * sizeof(void *)), **N = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(A, slots * bbytes);
    ARMCI_Malloc(C, slots * bbytes);
    ARMCI_Malloc(D, slots * sizeof(int));
    ARMCI_Malloc(N, sizeof(long)); /* the task counter; only rank 0's is used */
    double *a = A[me], *c = C[me];
    int *done = D[me];
    ARMCI_Access_begin(a);
    ARMCI_Access_begin(c);
    ARMCI_Access_begin(done);
    for (int s = 0; s < slots; s++) {
        int t = s * nproc + me;
        for (int i = 0; i < block; i++) {
            a[(size_t)s * block + i] = t + i / 1024.0;
            c[(size_t)s * block + i] = 0.0;
        }
        done[s] = 0;
    }
    ARMCI_Access_end(done);
    ARMCI_Access_end(c);
    ARMCI_Access_end(a);
    ARMCI_Access_begin(N[me]);
    *(long *)N[me] = 0;
    ARMCI_Access_end(N[me]);
    ARMCI_Barrier();

    double *in = malloc(bbytes), *out = malloc(bbytes);
    double one = 1.0;
    int ione = 1, mine = 0;
    double t0 = now(), claim_s = 0;
    for (;;) {
        long t;
        double tc = now();
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &t, N[0], 1, 0);
        claim_s += now() - tc;
        if (t >= ntasks)
            break;
        mine++;
        int owner = t % nproc, slot = t / nproc;
        ARMCI_Get((double *)A[owner] + (size_t)slot * block, in, bbytes, owner);
        for (int i = 0; i < block; i++)
            out[i] = 2.0 * in[i] + 1.0;
        compute(task_s);
        ARMCI_Acc(ARMCI_ACC_DBL, &one, out, (double *)C[owner] + (size_t)slot * block, bbytes, owner);
        ARMCI_Acc(ARMCI_ACC_INT, &ione, &ione, (int *)D[owner] + slot, sizeof(int), owner);
    }
    double elapsed = now() - t0;
    ARMCI_Barrier();

    ARMCI_Access_begin(c);
    ARMCI_Access_begin(done);
    for (int s = 0; s < slots; s++) {
        int t = s * nproc + me;
        if (t >= ntasks)
            continue;
        CHECK(done[s] == 1, "task %d ran %d times", t, done[s]);
        int bad = 0;
        for (int i = 0; i < block && !bad; i++) {
            double want = 2.0 * (t + i / 1024.0) + 1.0;
            if (c[(size_t)s * block + i] != want) {
                bad = 1;
                CHECK(0, "task %d element %d is %g, want %g", t, i, c[(size_t)s * block + i], want);
            }
        }
        if (!bad)
            CHECK(1, "task %d", t);
    }
    ARMCI_Access_end(done);
    ARMCI_Access_end(c);
    int total;
    MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        CHECK(total == ntasks, "%d tasks claimed in all, want %d", total, ntasks);
    double tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    printf("nxtask: rank %d ran %d of %d tasks, %.3f s claiming\n", me, mine, ntasks, claim_s);
    if (me == 0)
        printf("nxtask: %d tasks of %.1f ms on %d ranks, time_s=%.3f\n", ntasks, task_s * 1e3, nproc, tmax);
    fflush(stdout);

    ARMCI_Free(N[me]);
    ARMCI_Free(done);
    ARMCI_Free(c);
    ARMCI_Free(a);
    free(in);
    free(out);
    return finish();
}

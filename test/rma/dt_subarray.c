/* Subarray datatypes: the target window holds a 3-D array of doubles
 * [8][5][4]; each origin owns the slab dim0 in [2*o, 2*o+2) of its right
 * neighbour and puts a strided 2x3x2 subarray there from a contiguous
 * buffer, accumulates into another 2x2x2 subarray of its slab, and reads a
 * 2x5x1 subarray (a strided column set) into a subarray of a differently
 * shaped origin array. Three kinds of epoch. */
#include "rma.h"

#define D0 8
#define D1 5
#define D2 4
static double init_val(int i, int j, int k) { return i * 100 + j * 10 + k + 0.5; }
#define AT(i, j, k) ((i) * D1 * D2 + (j) * D2 + (k))

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    double *w = alloc_win(D0 * D1 * D2 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int sizes[3] = {D0, D1, D2};
    MPI_Datatype tput, tacc, tget, oget;
    int psub[3] = {2, 3, 2}, pst[3] = {2 * me, 0, 1};   /* my slab, rows 0-2, cols 1-2 */
    int asub[3] = {2, 2, 2}, ast[3] = {2 * me, 3, 2};   /* my slab, rows 3-4, cols 2-3 */
    int gsub[3] = {2, 5, 1}, gst[3] = {2 * me, 0, 0};   /* column k=0 of my slab (never written) */
    MPI_Type_create_subarray(3, sizes, psub, pst, MPI_ORDER_C, MPI_DOUBLE, &tput);
    MPI_Type_create_subarray(3, sizes, asub, ast, MPI_ORDER_C, MPI_DOUBLE, &tacc);
    MPI_Type_create_subarray(3, sizes, gsub, gst, MPI_ORDER_C, MPI_DOUBLE, &tget);
    int osz[2] = {4, 6}, osub[2] = {2, 5}, ost[2] = {1, 1}; /* origin: 4x6, fill the inner 2x5 */
    MPI_Type_create_subarray(2, osz, osub, ost, MPI_ORDER_C, MPI_DOUBLE, &oget);
    MPI_Type_commit(&tput);
    MPI_Type_commit(&tacc);
    MPI_Type_commit(&tget);
    MPI_Type_commit(&oget);

    for (int m = 0; m < NSIMPLE; m++) {
        cur_mode = simple_modes[m];
        self_lock(win, MPI_LOCK_EXCLUSIVE);
        for (int i = 0; i < D0; i++)
            for (int j = 0; j < D1; j++)
                for (int k = 0; k < D2; k++)
                    w[AT(i, j, k)] = init_val(i, j, k);
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);

        double pb[12], ab[8], gb[24];
        for (int n = 0; n < 12; n++)
            pb[n] = -(1000.0 * m + 100 * me + n);
        for (int n = 0; n < 8; n++)
            ab[n] = 0.25 * (me + 1);
        for (int n = 0; n < 24; n++)
            gb[n] = -1;
        simple_open(m, right, win);
        MPI_Put(pb, 12, MPI_DOUBLE, right, 0, 1, tput, win);
        MPI_Accumulate(ab, 8, MPI_DOUBLE, right, 0, 1, tacc, MPI_SUM, win);
        MPI_Get(gb, 1, oget, right, 0, 1, tget, win);
        simple_close(m, right, win);

        int bad = 0;
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 6; b++) {
                int inside = a >= 1 && a < 3 && b >= 1 && b < 6;
                double want = inside ? init_val(2 * me + a - 1, b - 1, 0) : -1;
                if (gb[a * 6 + b] != want && bad++ == 0)
                    CHECKM(0, "get subarray [%d][%d] = %g want %g", a, b, gb[a * 6 + b], want);
            }
        CHECKM(bad == 0, "%d origin elements wrong", bad);

        self_lock(win, MPI_LOCK_SHARED);
        bad = 0;
        int n = 0;
        for (int i = 0; i < D0; i++)
            for (int j = 0; j < D1; j++)
                for (int k = 0; k < D2; k++) {
                    double want = init_val(i, j, k);
                    int mine = i >= 2 * left && i < 2 * left + 2;
                    if (mine && j < 3 && k >= 1 && k < 3)
                        want = -(1000.0 * m + 100 * left + n++);
                    else if (mine && j >= 3 && j < 5 && k >= 2 && k < 4)
                        want += 0.25 * (left + 1);
                    if (w[AT(i, j, k)] != want && bad++ == 0)
                        CHECKM(0, "window [%d][%d][%d] = %g want %g", i, j, k, w[AT(i, j, k)], want);
                }
        CHECKM(bad == 0, "%d window elements wrong", bad);
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Type_free(&tput);
    MPI_Type_free(&tacc);
    MPI_Type_free(&tget);
    MPI_Type_free(&oget);
    MPI_Win_free(&win);
    return rma_finish();
}

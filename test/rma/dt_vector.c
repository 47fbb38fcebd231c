/* Vector and hvector datatypes on the origin and the target side: each
 * rank writes column 1 of its right neighbour's matrix from a contiguous
 * buffer, reads column 0 into every other int of the origin buffer,
 * accumulates into columns 2.. of every even row (hvector) and fetches
 * column 5 with Get_accumulate through vectors on both sides, in three
 * kinds of epoch. No two of these touch the same element, except the two
 * accumulates, which are ordered. */
#include "rma.h"

#define ROWS 6
#define COLS 8
static int m0(int r, int c) { return 1000 + r * COLS + c; }

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int *w = alloc_win(ROWS * COLS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Datatype col, col2, hrow;
    MPI_Type_vector(ROWS, 1, COLS, MPI_INT, &col);    /* a column of the matrix */
    MPI_Type_vector(ROWS, 1, 2, MPI_INT, &col2);       /* every other int */
    MPI_Type_create_hvector(ROWS / 2, COLS - 2, 2 * COLS * sizeof(int), MPI_INT, &hrow); /* even rows, cols 2.. */
    MPI_Type_commit(&col);
    MPI_Type_commit(&col2);
    MPI_Type_commit(&hrow);

    for (int m = 0; m < NSIMPLE; m++) {
        cur_mode = simple_modes[m];
        self_lock(win, MPI_LOCK_EXCLUSIVE);
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++)
                w[r * COLS + c] = m0(r, c);
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);

        int colbuf[ROWS], strided[2 * ROWS], accb[ROWS / 2 * COLS], fetched[ROWS];
        for (int r = 0; r < ROWS; r++)
            colbuf[r] = -(m * 100 + me * 10 + r);
        for (int i = 0; i < 2 * ROWS; i++)
            strided[i] = 424242;
        for (int i = 0; i < ROWS / 2 * COLS; i++)
            accb[i] = me + 1;
        for (int r = 0; r < ROWS; r++)
            fetched[r] = -1;

        simple_open(m, right, win);
        /* contiguous origin -> column 1 at the target */
        MPI_Put(colbuf, ROWS, MPI_INT, right, 1, 1, col, win);
        /* column 0 -> every other int of the origin buffer */
        MPI_Get(strided, 1, col2, right, 0, 1, col, win);
        /* even rows, columns 2.. += me+1: hvector target, contiguous origin */
        MPI_Accumulate(accb, ROWS / 2 * (COLS - 2), MPI_INT, right, 2, 1, hrow, MPI_SUM, win);
        /* fetch column 5 (after a SUM of 0 through a vector) */
        int zeros[2 * ROWS] = {0};
        MPI_Get_accumulate(zeros, 1, col2, fetched, ROWS, MPI_INT, right, 5, 1, col, MPI_SUM, win);
        simple_close(m, right, win);

        for (int r = 0; r < ROWS; r++) {
            CHECKM(strided[2 * r] == m0(r, 0), "get col 0 row %d = %d", r, strided[2 * r]);
            CHECKM(strided[2 * r + 1] == 424242, "get wrote a gap at %d", 2 * r + 1);
        }
        /* get_accumulate is ordered after the accumulate (same origin, same target) */
        for (int r = 0; r < ROWS; r++)
            CHECKM(fetched[r] == m0(r, 5) + (r % 2 == 0 ? me + 1 : 0), "get_acc col 5 row %d = %d", r, fetched[r]);

        self_lock(win, MPI_LOCK_SHARED);
        int bad = 0;
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++) {
                int want = c == 1 ? -(m * 100 + left * 10 + r) : m0(r, c) + (r % 2 == 0 && c >= 2 ? left + 1 : 0);
                if (w[r * COLS + c] != want && bad++ == 0)
                    CHECKM(0, "matrix[%d][%d] = %d want %d", r, c, w[r * COLS + c], want);
            }
        CHECKM(bad == 0, "%d matrix elements wrong", bad);
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Type_free(&col);
    MPI_Type_free(&col2);
    MPI_Type_free(&hrow);
    MPI_Win_free(&win);
    return rma_finish();
}

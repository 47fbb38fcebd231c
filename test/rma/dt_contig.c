/* Contiguous datatypes, and different origin and target types with the
 * same type signature: MPI_INT x12 into contiguous(4) x3; contiguous(3)
 * x2 of doubles read into MPI_DOUBLE x6; an accumulate of contiguous(2) x3
 * into MPI_INT x6; Get_accumulate with a nested contiguous type on the
 * target; zero-count operations (legal no-ops). Three kinds of epoch. */
#include "rma.h"

/* window layout in bytes: ints [0,48) puts, [48,72) accumulates, [72,96)
 * fetch block; doubles at [96,144) read-only */
enum { PUTB = 0, ACCB = 48, FETB = 72, DBLB = 96, WB = 144 };

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    char *w = alloc_win(WB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Datatype c4, d3, i2, c2c3;
    MPI_Type_contiguous(4, MPI_INT, &c4);
    MPI_Type_contiguous(3, MPI_DOUBLE, &d3);
    MPI_Type_contiguous(2, MPI_INT, &i2);
    MPI_Type_contiguous(3, i2, &c2c3); /* nested: 6 ints */
    MPI_Type_commit(&c4);
    MPI_Type_commit(&d3);
    MPI_Type_commit(&i2);
    MPI_Type_commit(&c2c3);

    for (int m = 0; m < NSIMPLE; m++) {
        cur_mode = simple_modes[m];
        self_lock(win, MPI_LOCK_EXCLUSIVE);
        int *wi = (int *)w;
        double *wd = (double *)(w + DBLB);
        for (int i = 0; i < DBLB / 4; i++)
            wi[i] = i;
        for (int i = 0; i < 6; i++)
            wd[i] = me + i / 4.0;
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);

        int pb[12], ab[6], one6[6] = {1, 1, 1, 1, 1, 1}, fb[6] = {-1, -1, -1, -1, -1, -1}, dummy = 5;
        double gd[6] = {-1, -1, -1, -1, -1, -1};
        for (int i = 0; i < 12; i++)
            pb[i] = 1000 * m + 100 * me + i;
        for (int i = 0; i < 6; i++)
            ab[i] = (me + 1) * (i + 1);
        simple_open(m, right, win);
        MPI_Put(pb, 12, MPI_INT, right, PUTB, 3, c4, win);
        MPI_Get(gd, 2, d3, right, DBLB, 6, MPI_DOUBLE, win);
        MPI_Accumulate(ab, 3, i2, right, ACCB, 6, MPI_INT, MPI_SUM, win);
        MPI_Get_accumulate(one6, 6, MPI_INT, fb, 3, i2, right, FETB, 1, c2c3, MPI_SUM, win);
        MPI_Put(&dummy, 0, MPI_INT, right, PUTB, 0, MPI_INT, win);
        MPI_Get(&dummy, 0, MPI_INT, right, PUTB, 0, MPI_INT, win);
        MPI_Accumulate(&dummy, 0, MPI_INT, right, ACCB, 0, MPI_INT, MPI_SUM, win);
        simple_close(m, right, win);

        for (int i = 0; i < 6; i++) {
            CHECKM(gd[i] == right + i / 4.0, "get double %d = %g", i, gd[i]);
            CHECKM(fb[i] == FETB / 4 + i, "get_acc fetched %d = %d", i, fb[i]);
        }
        CHECKM(dummy == 5, "zero-count get wrote %d", dummy);
        self_lock(win, MPI_LOCK_SHARED);
        int want[12];
        for (int i = 0; i < 12; i++)
            want[i] = 1000 * m + 100 * left + i;
        check_ints(wi + PUTB / 4, want, 12, "contiguous put");
        for (int i = 0; i < 6; i++)
            want[i] = ACCB / 4 + i + (left + 1) * (i + 1);
        check_ints(wi + ACCB / 4, want, 6, "contiguous accumulate");
        for (int i = 0; i < 6; i++)
            want[i] = FETB / 4 + i + 1;
        check_ints(wi + FETB / 4, want, 6, "nested contiguous get_accumulate");
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Type_free(&c4);
    MPI_Type_free(&d3);
    MPI_Type_free(&i2);
    MPI_Type_free(&c2c3);
    MPI_Win_free(&win);
    return rma_finish();
}

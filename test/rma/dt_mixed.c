/* Different datatypes on each side of one operation, with equal type
 * signatures: a vector origin into an indexed target (Put), an indexed
 * origin from a resized-vector target (Get), Get_accumulate with a
 * contiguous origin, a vector result buffer and an indexed-block target,
 * a duplicated type (MPI_Type_dup); and the predefined pair type MPI_2INT
 * with MPI_MAXLOC and MPI_MINLOC accumulated by every rank into rank 0. */
#include "rma.h"

#define WN 48
static int init_val(int j) { return 5000 + j; }

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int *w = alloc_win(WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Datatype ovec, tind, oind, rvec, tvec1, ivec, tblk, dup;
    MPI_Type_vector(3, 2, 4, MPI_INT, &ovec); /* origin ints 0-1, 4-5, 8-9 */
    int bl[2] = {4, 2}, dp[2] = {0, 6};
    MPI_Type_indexed(2, bl, dp, MPI_INT, &tind); /* target ints 0-3, 6-7 */
    int obl[3] = {1, 1, 2}, odp[3] = {0, 2, 5};
    MPI_Type_indexed(3, obl, odp, MPI_INT, &oind); /* origin ints 0, 2, 5-6 */
    MPI_Type_vector(1, 1, 1, MPI_INT, &tvec1);
    MPI_Type_create_resized(tvec1, 0, 3 * sizeof(int), &rvec); /* every third int */
    MPI_Type_vector(4, 1, 2, MPI_INT, &ivec);                   /* result: ints 0, 2, 4, 6 */
    int bd[2] = {0, 3};
    MPI_Type_create_indexed_block(2, 2, bd, MPI_INT, &tblk);    /* target ints 0-1, 3-4 */
    MPI_Type_dup(tind, &dup);
    MPI_Datatype all[] = {ovec, tind, oind, rvec, ivec, tblk, dup};
    for (int i = 0; i < 7; i++)
        MPI_Type_commit(&all[i]);
    ovec = all[0]; tind = all[1]; oind = all[2]; rvec = all[3]; ivec = all[4]; tblk = all[5]; dup = all[6];

    for (int m = 0; m < NSIMPLE; m++) {
        cur_mode = simple_modes[m];
        self_lock(win, MPI_LOCK_EXCLUSIVE);
        for (int j = 0; j < WN; j++)
            w[j] = init_val(j);
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);

        int ob[12], gb[8], one4[4] = {1, 1, 1, 1}, rb[8], db[6];
        for (int i = 0; i < 12; i++)
            ob[i] = -(100 * me + 10 * m + i);
        for (int i = 0; i < 8; i++)
            gb[i] = rb[i] = -1;
        for (int i = 0; i < 6; i++)
            db[i] = 7 * (me + 1) + i;
        simple_open(m, right, win);
        MPI_Put(ob, 1, ovec, right, 0, 1, tind, win);                    /* ints 0-3, 6-7 */
        MPI_Get(gb, 1, oind, right, 12, 4, rvec, win);                   /* ints 12, 15, 18, 21 */
        MPI_Get_accumulate(one4, 4, MPI_INT, rb, 1, ivec, right, 24, 1, tblk, MPI_SUM, win); /* 24-25, 27-28 */
        MPI_Accumulate(db, 6, MPI_INT, right, 32, 1, dup, MPI_SUM, win);  /* 32-35, 38-39 */
        simple_close(m, right, win);

        int gpos[4] = {0, 2, 5, 6}, gsrc[4] = {12, 15, 18, 21};
        for (int i = 0; i < 4; i++)
            CHECKM(gb[gpos[i]] == init_val(gsrc[i]), "get %d = %d", i, gb[gpos[i]]);
        CHECKM(gb[1] == -1 && gb[3] == -1 && gb[4] == -1 && gb[7] == -1, "get wrote a gap");
        int rsrc[4] = {24, 25, 27, 28};
        for (int i = 0; i < 4; i++)
            CHECKM(rb[2 * i] == init_val(rsrc[i]) && rb[2 * i + 1] == -1, "get_acc result %d = %d", i, rb[2 * i]);

        self_lock(win, MPI_LOCK_SHARED);
        int want[WN];
        for (int j = 0; j < WN; j++)
            want[j] = init_val(j);
        int pdst[6] = {0, 1, 2, 3, 6, 7}, psrc[6] = {0, 1, 4, 5, 8, 9};
        for (int i = 0; i < 6; i++)
            want[pdst[i]] = -(100 * left + 10 * m + psrc[i]);
        for (int i = 0; i < 4; i++)
            want[rsrc[i]] += 1;
        int adst[6] = {32, 33, 34, 35, 38, 39};
        for (int i = 0; i < 6; i++)
            want[adst[i]] += 7 * (left + 1) + i;
        check_ints(w, want, WN, "window");
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    cur_mode = "maxloc/minloc";
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    w[40] = -1; w[41] = -1;          /* MAXLOC pair (value, index) */
    w[42] = 1 << 20; w[43] = -1;     /* MINLOC pair */
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int mx[2] = {7, me}, mn[2] = {100 - me, me};
    MPI_Win_lock_all(0, win);
    MPI_Accumulate(mx, 1, MPI_2INT, 0, 40, 1, MPI_2INT, MPI_MAXLOC, win);
    MPI_Accumulate(mn, 1, MPI_2INT, 0, 42, 1, MPI_2INT, MPI_MINLOC, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        self_lock(win, MPI_LOCK_SHARED);
        CHECK(w[40] == 7 && w[41] == 0, "maxloc (%d, %d), want (7, 0): ties go to the lower index", w[40], w[41]);
        CHECK(w[42] == 100 - (np - 1) && w[43] == np - 1, "minloc (%d, %d)", w[42], w[43]);
        self_unlock(win);
    }
    for (int i = 0; i < 7; i++)
        MPI_Type_free(&all[i]);
    MPI_Type_free(&tvec1);
    MPI_Win_free(&win);
    return rma_finish();
}

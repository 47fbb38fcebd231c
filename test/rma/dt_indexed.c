/* Indexed datatypes: MPI_Type_indexed (blocks of different lengths),
 * MPI_Type_create_hindexed, MPI_Type_create_indexed_block and
 * MPI_Type_create_hindexed_block, on the target of Put and Accumulate and
 * on both sides of Get. Three kinds of epoch; exact element checks,
 * untouched elements included. */
#include "rma.h"

#define WN 64
static int init_val(int j) { return 10000 + j; }

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int *w = alloc_win(WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;

    /* put target: ints 0, 3-4, 8-10 (6 ints) */
    int bl[3] = {1, 2, 3}, dp[3] = {0, 3, 8};
    MPI_Datatype ind, hind, iblk, hiblk;
    MPI_Type_indexed(3, bl, dp, MPI_INT, &ind);
    /* accumulate target: ints 16-17, 20, 24-26 as byte offsets */
    int hbl[3] = {2, 1, 3};
    MPI_Aint hdp[3] = {16 * 4, 20 * 4, 24 * 4};
    MPI_Type_create_hindexed(3, hbl, hdp, MPI_INT, &hind);
    /* get source: 4 blocks of 2 at ints 32, 36, 42, 50 */
    int ibd[4] = {32, 36, 42, 50};
    MPI_Type_create_indexed_block(4, 2, ibd, MPI_INT, &iblk);
    /* get destination: 4 blocks of 2 at byte offsets 0, 12, 24, 36 */
    MPI_Aint hibd[4] = {0, 12, 24, 36};
    MPI_Type_create_hindexed_block(4, 2, hibd, MPI_INT, &hiblk);
    MPI_Type_commit(&ind);
    MPI_Type_commit(&hind);
    MPI_Type_commit(&iblk);
    MPI_Type_commit(&hiblk);
    int putset[6] = {0, 3, 4, 8, 9, 10}, accset[6] = {16, 17, 20, 24, 25, 26}, getset[8] = {32, 33, 36, 37, 42, 43, 50, 51};

    for (int m = 0; m < NSIMPLE; m++) {
        cur_mode = simple_modes[m];
        self_lock(win, MPI_LOCK_EXCLUSIVE);
        for (int j = 0; j < WN; j++)
            w[j] = init_val(j);
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);

        int pb[6], ab[6], gb[12];
        for (int i = 0; i < 6; i++) {
            pb[i] = -(100 * me + 10 * m + i);
            ab[i] = me + 1 + i;
        }
        for (int i = 0; i < 12; i++)
            gb[i] = -1;
        simple_open(m, right, win);
        MPI_Put(pb, 6, MPI_INT, right, 0, 1, ind, win);
        MPI_Accumulate(ab, 6, MPI_INT, right, 0, 1, hind, MPI_SUM, win);
        MPI_Get(gb, 1, hiblk, right, 0, 1, iblk, win);
        simple_close(m, right, win);

        /* hiblk blocks land at ints 0-1, 3-4, 6-7, 9-10 of gb */
        int gpos[8] = {0, 1, 3, 4, 6, 7, 9, 10};
        for (int i = 0; i < 8; i++)
            CHECKM(gb[gpos[i]] == init_val(getset[i]), "get element %d = %d", i, gb[gpos[i]]);
        CHECKM(gb[2] == -1 && gb[5] == -1 && gb[8] == -1 && gb[11] == -1, "get wrote into gaps");

        self_lock(win, MPI_LOCK_SHARED);
        int want[WN];
        for (int j = 0; j < WN; j++)
            want[j] = init_val(j);
        for (int i = 0; i < 6; i++) {
            want[putset[i]] = -(100 * left + 10 * m + i);
            want[accset[i]] += left + 1 + i;
        }
        check_ints(w, want, WN, "window after indexed put/acc");
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Type_free(&ind);
    MPI_Type_free(&hind);
    MPI_Type_free(&iblk);
    MPI_Type_free(&hiblk);
    MPI_Win_free(&win);
    return rma_finish();
}

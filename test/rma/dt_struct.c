/* Struct datatypes of doubles with gaps (resized to the C struct's extent):
 * records {double x; double pad; double v[2]; double pad2; double m;} where
 * only x, v and m are described. Put, Accumulate (all components are
 * MPI_DOUBLE, so this is allowed), Get into a struct-typed origin buffer,
 * and Get_accumulate, against the right neighbour, in three epochs. */
#include "rma.h"
#include <stddef.h>

typedef struct {
    double x, pad, v[2], pad2, m;
} rec;
#define NREC 6

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    rec *w = alloc_win(NREC * sizeof(rec), sizeof(rec), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int bl[3] = {1, 2, 1};
    MPI_Aint dp[3] = {offsetof(rec, x), offsetof(rec, v), offsetof(rec, m)};
    MPI_Datatype ty[3] = {MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE}, st, rt;
    MPI_Type_create_struct(3, bl, dp, ty, &st);
    MPI_Type_create_resized(st, 0, sizeof(rec), &rt);
    MPI_Type_commit(&rt);

    for (int m = 0; m < NSIMPLE; m++) {
        cur_mode = simple_modes[m];
        self_lock(win, MPI_LOCK_EXCLUSIVE);
        for (int r = 0; r < NREC; r++)
            w[r] = (rec){r, -7, {r + 0.25, r + 0.5}, -7, r * 2.0};
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);

        double pb[8], ab[8], ones[4] = {1, 1, 1, 1}, fb[4] = {-1, -1, -1, -1};
        rec gr[2];
        memset(gr, 0, sizeof(gr));
        for (int i = 0; i < 8; i++) {
            pb[i] = -(100.0 * m + 10 * me + i);
            ab[i] = 0.5 * (me + 1);
        }
        gr[0].pad = gr[1].pad = 99;
        simple_open(m, right, win);
        MPI_Put(pb, 8, MPI_DOUBLE, right, 0, 2, rt, win);           /* records 0-1 */
        MPI_Accumulate(ab, 8, MPI_DOUBLE, right, 2, 2, rt, MPI_SUM, win); /* records 2-3 */
        MPI_Get(gr, 2, rt, right, 4, 2, rt, win);                   /* records 4-5 */
        MPI_Get_accumulate(ones, 4, MPI_DOUBLE, fb, 4, MPI_DOUBLE, right, 2, 1, rt, MPI_SUM, win);
        simple_close(m, right, win);

        for (int r = 0; r < 2; r++) {
            int s = 4 + r;
            CHECKM(gr[r].x == s && gr[r].v[0] == s + 0.25 && gr[r].v[1] == s + 0.5 && gr[r].m == s * 2.0,
                   "get record %d: %g %g %g %g", s, gr[r].x, gr[r].v[0], gr[r].v[1], gr[r].m);
            CHECKM(gr[r].pad == 99 && gr[r].pad2 == 0, "get wrote padding of record %d", s);
        }
        /* the get_accumulate follows the accumulate to the same record: ordered */
        double h = 0.5 * (me + 1);
        CHECKM(fb[0] == 2 + h && fb[1] == 2.25 + h && fb[2] == 2.5 + h && fb[3] == 4 + h,
               "get_acc fetched %g %g %g %g", fb[0], fb[1], fb[2], fb[3]);

        self_lock(win, MPI_LOCK_SHARED);
        for (int r = 0; r < NREC; r++) {
            rec want = {r, -7, {r + 0.25, r + 0.5}, -7, r * 2.0};
            if (r < 2) {
                int b = r * 4;
                want.x = -(100.0 * m + 10 * left + b);
                want.v[0] = -(100.0 * m + 10 * left + b + 1);
                want.v[1] = -(100.0 * m + 10 * left + b + 2);
                want.m = -(100.0 * m + 10 * left + b + 3);
            } else if (r < 4) {
                double hl = 0.5 * (left + 1) + (r == 2 ? 1 : 0);
                want.x += hl;
                want.v[0] += hl;
                want.v[1] += hl;
                want.m += hl;
            }
            CHECKM(!memcmp(&w[r], &want, sizeof(rec)), "record %d: %g %g %g %g %g %g", r, w[r].x, w[r].pad,
                   w[r].v[0], w[r].v[1], w[r].pad2, w[r].m);
        }
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
    MPI_Win_free(&win);
    return rma_finish();
}

/* MPI_PROC_NULL targets: every operation is a no-op (origin and result
 * buffers untouched, no window changed) under lock_all, fence, PSCW and
 * inside a lock epoch on a real target; request operations aimed at
 * MPI_PROC_NULL complete at once. Real operations in the same epochs still
 * take effect. */
#include "rma.h"

static int buf[4], res[4], cmp_[1];
static void all_ops(MPI_Win win, int real)
{
    MPI_Put(buf, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win);
    MPI_Get(res, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win);
    MPI_Accumulate(buf, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, MPI_SUM, win);
    MPI_Get_accumulate(buf, 4, MPI_INT, res, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, MPI_SUM, win);
    MPI_Fetch_and_op(buf, res, MPI_INT, MPI_PROC_NULL, 0, MPI_SUM, win);
    MPI_Compare_and_swap(buf, cmp_, res, MPI_INT, MPI_PROC_NULL, 0, win);
    if (real >= 0) {
        int one = 1;
        MPI_Accumulate(&one, 1, MPI_INT, real, 8, 1, MPI_INT, MPI_SUM, win);
    }
}

static void check_untouched(const char *where)
{
    for (int i = 0; i < 4; i++) {
        CHECK(buf[i] == 10 + i, "%s: origin buffer changed: [%d] = %d", where, i, buf[i]);
        CHECK(res[i] == -1, "%s: result buffer written: [%d] = %d", where, i, res[i]);
    }
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int *w = alloc_win(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int j = 0; j < 16; j++)
        w[j] = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++) {
        buf[i] = 10 + i;
        res[i] = -1;
    }
    cmp_[0] = 0;
    int right = (me + 1) % np;

    cur_mode = "lock_all";
    MPI_Win_lock_all(0, win);
    all_ops(win, right);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    check_untouched("lock_all");

    cur_mode = "lock on a real target";
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    all_ops(win, right);
    MPI_Win_unlock(right, win);
    check_untouched("lock");

    cur_mode = "requests";
    MPI_Request r[4];
    MPI_Win_lock_all(0, win);
    MPI_Rput(buf, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win, &r[0]);
    MPI_Rget(res, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win, &r[1]);
    MPI_Raccumulate(buf, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, MPI_SUM, win, &r[2]);
    MPI_Rget_accumulate(buf, 4, MPI_INT, res, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, MPI_SUM, win, &r[3]);
    for (int i = 0; i < 4; i++) {
        int flag = 0;
        MPI_Test(&r[i], &flag, MPI_STATUS_IGNORE);
        CHECK(flag, "request %d to MPI_PROC_NULL not complete at the first test", i);
        if (!flag)
            MPI_Wait(&r[i], MPI_STATUS_IGNORE);
    }
    MPI_Win_unlock_all(win);
    check_untouched("requests");

    cur_mode = "fence";
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    all_ops(win, right);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    check_untouched("fence");

    cur_mode = "pscw";
    MPI_Group g;
    MPI_Win_get_group(win, &g);
    MPI_Win_post(g, 0, win);
    MPI_Win_start(g, 0, win);
    all_ops(win, right);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    MPI_Group_free(&g);
    check_untouched("pscw");

    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    int bad = 0;
    for (int j = 0; j < 16; j++)
        bad += j != 8 && w[j] != 0;
    CHECK(bad == 0, "%d window elements changed by MPI_PROC_NULL operations", bad);
    CHECK(w[8] == 4, "real accumulates: %d, want 4", w[8]);
    self_unlock(win);
    MPI_Win_free(&win);
    return rma_finish();
}

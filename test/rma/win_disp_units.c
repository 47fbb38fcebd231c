/* Per-rank window sizes and displacement units: rank r allocates
 * 16*(r+1) elements of a unit that depends on r (1, 4, 8 or 16 bytes).
 * Every origin writes to every target at a displacement that only lands
 * right if the target's unit scales it: element index r+1 in the target's
 * unit, bytes written with MPI_BYTE. Then Get, Accumulate and
 * Fetch_and_op at the target's last element. */
#include "rma.h"

static int unit_of(int r) { return (int[]){1, 4, 8, 16}[r % 4]; }
static MPI_Aint elems_of(int r) { return 16 * (r + 1); }
/* the int accumulated at the end of each window: displacement, byte offset */
static MPI_Aint last_disp(int r) { return unit_of(r) >= 4 ? elems_of(r) - 1 : elems_of(r) - 4; }
static MPI_Aint last_byte(int r) { return last_disp(r) * unit_of(r); }

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int unit = unit_of(me);
    MPI_Aint bytes = elems_of(me) * unit;
    unsigned char *w = NULL;
    MPI_Win_allocate(bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    memset(w, 0, bytes);
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "put at scaled displacement";
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++) {
        /* origin o writes one byte at element o+1 of the target */
        unsigned char v = 0x40 + me;
        MPI_Put(&v, 1, MPI_BYTE, t, me + 1, 1, MPI_BYTE, win);
        /* and adds to the target's last element's first 4 bytes (an int) */
        int one = me + 1;
        MPI_Aint last = last_disp(t);
        MPI_Accumulate(&one, 1, MPI_INT, t, last, 1, MPI_INT, MPI_SUM, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    for (int o = 0; o < np; o++)
        CHECK(w[(o + 1) * unit] == 0x40 + o, "byte from %d at element %d (unit %d): %#x", o, o + 1, unit,
              w[(o + 1) * unit]);
    int bad = 0;
    for (MPI_Aint i = 0; i < bytes; i++) {
        int is_put = i % unit == 0 && i / unit >= 1 && i / unit <= np;
        int is_acc = i >= last_byte(me) && i < last_byte(me) + 4;
        if (!is_put && !is_acc && w[i] != 0)
            bad++;
    }
    CHECK(bad == 0, "%d stray bytes written", bad);
    int total;
    memcpy(&total, w + last_byte(me), 4);
    CHECK(total == np * (np + 1) / 2, "accumulate at the last element: %d", total);
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "get and fetch_and_op at scaled displacement";
    for (int t = 0; t < np; t++) {
        unsigned char got[4] = {0};
        int old = -1, zero = 0;
        MPI_Aint last = last_disp(t);
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        MPI_Get(got, 1, MPI_BYTE, t, me + 1, 1, MPI_BYTE, win);
        MPI_Fetch_and_op(&zero, &old, MPI_INT, t, last, MPI_SUM, win);
        MPI_Win_unlock(t, win);
        CHECK(got[0] == 0x40 + me, "get own byte back from %d: %#x", t, got[0]);
        CHECK(old == np * (np + 1) / 2, "fetch_and_op at %d's last element: %d", t, old);
    }
    MPI_Win_free(&win);
    return rma_finish();
}

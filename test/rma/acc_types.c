/* Accumulate on every class of predefined datatype: signed and unsigned
 * integers of every width (SUM, PROD, MAX, BOR, BXOR, LAND), floating point
 * (SUM, MAX, MIN, PROD), MPI_C_BOOL (LOR, LAND), complex (SUM) and MPI_BYTE
 * (BAND, BOR, BXOR). Every rank accumulates into every target; each target
 * checks its slots with loads, and every rank reads each slot back with
 * Get_accumulate(MPI_NO_OP) and Fetch_and_op(MPI_NO_OP) in the slot's type. */
#include "rma.h"
#include <complex.h>
#include <stdbool.h>

#define SLOT 16 /* bytes per slot: every type fits, every slot aligned */
static int nslots;
static char expect[64][SLOT];
static int sizes[64];
static MPI_Datatype types[64];
static const char *names[64];

/* phase 0: init own slot; 1: issue to target t; 2: build expected value */
#define ONE(T, MT, OP, INIT, CONTRIB, COMBINE)                                 \
    do {                                                                       \
        int s = slot++;                                                        \
        T *p = (T *)(w + s * SLOT);                                            \
        if (phase == 0) {                                                      \
            *p = (INIT);                                                       \
            types[s] = MT;                                                     \
            sizes[s] = sizeof(T);                                              \
            names[s] = #MT " " #OP;                                            \
        } else if (phase == 1) {                                               \
            static T c[4];                                                     \
            int o = me;                                                        \
            c[t] = (CONTRIB);                                                  \
            MPI_Accumulate(&c[t], 1, MT, t, s * SLOT, 1, MT, OP, win);         \
        } else {                                                               \
            T acc = (INIT);                                                    \
            for (int o = 0; o < np; o++) {                                     \
                T c = (CONTRIB);                                               \
                acc = COMBINE;                                                 \
            }                                                                  \
            memset(expect[s], 0, SLOT);                                        \
            memcpy(expect[s], &acc, sizeof(T));                                \
        }                                                                      \
    } while (0)

#define SUMF (acc + c)
#define PRODF (acc * c)
#define MAXF (acc > c ? acc : c)
#define MINF (acc < c ? acc : c)
#define BORF (acc | c)
#define BANDF (acc & c)
#define BXORF (acc ^ c)
#define LANDF (acc && c)
#define LORF (acc || c)

static void all(int phase, char *w, int t, MPI_Win win)
{
    int slot = 0;
    ONE(signed char, MPI_SIGNED_CHAR, MPI_SUM, -100, o + 1, SUMF);
    ONE(unsigned char, MPI_UNSIGNED_CHAR, MPI_MAX, 3, 10 * o, MAXF);
    ONE(short, MPI_SHORT, MPI_PROD, -3, o + 2, PRODF);
    ONE(unsigned short, MPI_UNSIGNED_SHORT, MPI_BOR, 0x8000, 1 << o, BORF);
    ONE(int, MPI_INT, MPI_BXOR, 0x0f0f, 0x111 * (o + 1), BXORF);
    ONE(unsigned, MPI_UNSIGNED, MPI_SUM, 4000000000u, o + 1, SUMF);
    ONE(long, MPI_LONG, MPI_MIN, 5, -(long)o * 1000000000L, MINF);
    ONE(unsigned long, MPI_UNSIGNED_LONG, MPI_SUM, 1UL << 40, o + 1, SUMF);
    ONE(long long, MPI_LONG_LONG, MPI_SUM, -(1LL << 50), (long long)(o + 1) << 33, SUMF);
    ONE(unsigned long long, MPI_UNSIGNED_LONG_LONG, MPI_BAND, ~0ULL, ~(1ULL << (60 + o)), BANDF);
    ONE(int8_t, MPI_INT8_T, MPI_MIN, 0, -(int8_t)(o * 30), MINF);
    ONE(uint8_t, MPI_UINT8_T, MPI_BXOR, 0xaa, 1 << o, BXORF);
    ONE(int16_t, MPI_INT16_T, MPI_SUM, -30000, o + 1, SUMF);
    ONE(uint16_t, MPI_UINT16_T, MPI_PROD, 1, o + 3, PRODF);
    ONE(int32_t, MPI_INT32_T, MPI_LAND, 1, o + 1, LANDF);
    ONE(uint32_t, MPI_UINT32_T, MPI_MAX, 7, 0x7ffffff0u + o, MAXF); /* high bit: acc_unsigned.c */
    ONE(int64_t, MPI_INT64_T, MPI_SUM, 1LL << 40, -(int64_t)(o + 1), SUMF);
    ONE(uint64_t, MPI_UINT64_T, MPI_BOR, 1, 1ULL << (50 + o), BORF);
    ONE(float, MPI_FLOAT, MPI_SUM, 0.5f, 0.25f * (o + 1), SUMF);
    ONE(float, MPI_FLOAT, MPI_MAX, -1.0f, 1.5f * o, MAXF);
    ONE(double, MPI_DOUBLE, MPI_SUM, 1e10, 0.125 * (o + 1), SUMF);
    ONE(double, MPI_DOUBLE, MPI_MIN, 1e300, -2.5 * o, MINF);
    ONE(double, MPI_DOUBLE, MPI_PROD, 1.5, o + 0.5, PRODF);
    ONE(bool, MPI_C_BOOL, MPI_LOR, false, o == np - 1, LORF);
    ONE(bool, MPI_C_BOOL, MPI_LAND, true, o != 1, LANDF);
    ONE(double _Complex, MPI_C_DOUBLE_COMPLEX, MPI_SUM, 1.0 + 1.0 * I, (o + 1) - 0.5 * o * I, SUMF);
    ONE(float _Complex, MPI_C_FLOAT_COMPLEX, MPI_SUM, 0.0f, 1.0f * o + 2.0f * I, SUMF);
    ONE(unsigned char, MPI_BYTE, MPI_BAND, 0xff, (unsigned char)~(1 << o), BANDF);
    ONE(unsigned char, MPI_BYTE, MPI_BOR, 0x00, 1 << (o + 2), BORF);
    ONE(unsigned char, MPI_BYTE, MPI_BXOR, 0x5a, 0x11 * (o + 1), BXORF);
    nslots = slot;
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    char *w = alloc_win(64 * SLOT, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    memset(w, 0, 64 * SLOT);
    all(0, w, 0, win);
    self_unlock(win);
    all(2, w, 0, win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "accumulate";
    MPI_Win_lock_all(0, win);
    for (int k = 0; k < np; k++)
        all(1, w, (me + k) % np, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "local check";
    self_lock(win, MPI_LOCK_SHARED);
    for (int s = 0; s < nslots; s++)
        CHECKM(!memcmp(w + s * SLOT, expect[s], sizes[s]), "%s: wrong result", names[s]);
    self_unlock(win);

    cur_mode = "read back";
    char got[SLOT], got2[SLOT];
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++)
        for (int s = 0; s < nslots; s++) {
            memset(got, 0x77, SLOT);
            memset(got2, 0x77, SLOT);
            MPI_Get_accumulate(NULL, 0, types[s], got, 1, types[s], t, s * SLOT, 1, types[s], MPI_NO_OP, win);
            MPI_Fetch_and_op(NULL, got2, types[s], t, s * SLOT, MPI_NO_OP, win);
            MPI_Win_flush(t, win);
            CHECKM(!memcmp(got, expect[s], sizes[s]) && !memcmp(got2, expect[s], sizes[s]),
                   "%s read back from %d", names[s], t);
        }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    return rma_finish();
}

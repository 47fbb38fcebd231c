/* Info hints on MPI_Win_allocate: epochs_used (several values),
 * no_local_load_store, async_config=on/off, accumulate_ops, and an
 * unknown key. Each window is used only with the epochs it declares,
 * local accesses included (data checked), and MPI_Win_get_info returns a valid info object whose keys can
 * all be read. Under Ghost with ghosts (GHOST_NG >= 1 in the environment)
 * a window with epochs_used set must report it back. */
#include "rma.h"

static int ghosts_expected(void)
{
    const char *ng = getenv("GHOST_NG");
    return ng && atoi(ng) >= 1;
}

/* reads every key of the window's info; returns the value of key or "" */
static void info_value(MPI_Win win, const char *key, char *out, int outlen)
{
    MPI_Info info = MPI_INFO_NULL;
    MPI_Win_get_info(win, &info);
    CHECK(info != MPI_INFO_NULL, "Win_get_info returned MPI_INFO_NULL");
    out[0] = 0;
    if (info == MPI_INFO_NULL)
        return;
    int nkeys = -1;
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys >= 0, "nkeys %d", nkeys);
    for (int i = 0; i < nkeys; i++) {
        char k[MPI_MAX_INFO_KEY + 1], v[256];
        int vlen, flag;
        MPI_Info_get_nthkey(info, i, k);
        MPI_Info_get_valuelen(info, k, &vlen, &flag);
        CHECK(flag && vlen >= 0, "key %s has no value", k);
        if (flag && vlen < (int)sizeof(v)) {
            MPI_Info_get(info, k, sizeof(v) - 1, v, &flag);
            if (!strcmp(k, key))
                snprintf(out, outlen, "%s", v);
        }
    }
    MPI_Info_free(&info);
}

static MPI_Win make(const char *k1, const char *v1, const char *k2, const char *v2, int **base)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (k1)
        MPI_Info_set(info, k1, v1);
    if (k2)
        MPI_Info_set(info, k2, v2);
    MPI_Win win;
    *base = alloc_win(16 * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &win);
    MPI_Info_free(&info);
    return win;
}

/* Local access to the window with only the epochs the hint allows: a lock
 * on oneself where "lock" is allowed, lock_all + Win_sync where only
 * "lockall" is; before a fence or a post, and after the closing fence or
 * wait, none is needed. noload: the window promised no_local_load_store,
 * so its memory is set and read through RMA on oneself. */
static void local_begin(const char *epoch, MPI_Win win)
{
    if (!strcmp(epoch, "lock"))
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    else if (!strcmp(epoch, "lockall"))
        MPI_Win_lock_all(0, win);
}
static void local_end(const char *epoch, MPI_Win win)
{
    if (!strcmp(epoch, "lock"))
        MPI_Win_unlock(me, win);
    else if (!strcmp(epoch, "lockall")) {
        MPI_Win_sync(win);
        MPI_Win_unlock_all(win);
    }
}

/* an accumulate and a put to every target with the named epoch kind, then
 * a check of the window */
static void use(MPI_Win win, int *w, const char *epoch, int noload)
{
    cur_mode = epoch;
    int zeros[16] = {0}, got[16];
    if (noload) { /* lockall only */
        MPI_Win_lock_all(0, win);
        MPI_Put(zeros, 16, MPI_INT, me, 0, 16, MPI_INT, win);
        MPI_Win_unlock_all(win);
    } else {
        local_begin(epoch, win);
        for (int i = 0; i < 16; i++)
            w[i] = 0;
        local_end(epoch, win);
    }
    if (!strcmp(epoch, "fence"))
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    int v = me + 1;
    MPI_Group g;
    MPI_Win_get_group(win, &g);
    if (!strcmp(epoch, "lock")) {
        for (int t = 0; t < np; t++) {
            MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
            MPI_Accumulate(&v, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win);
            MPI_Put(&v, 1, MPI_INT, t, 1 + me, 1, MPI_INT, win);
            MPI_Win_unlock(t, win);
        }
    } else if (!strcmp(epoch, "lockall")) {
        MPI_Win_lock_all(0, win);
        for (int t = 0; t < np; t++) {
            MPI_Accumulate(&v, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win);
            MPI_Put(&v, 1, MPI_INT, t, 1 + me, 1, MPI_INT, win);
        }
        MPI_Win_unlock_all(win);
    } else if (!strcmp(epoch, "fence")) {
        for (int t = 0; t < np; t++) {
            MPI_Accumulate(&v, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win);
            MPI_Put(&v, 1, MPI_INT, t, 1 + me, 1, MPI_INT, win);
        }
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    } else { /* pscw */
        MPI_Win_post(g, 0, win);
        MPI_Win_start(g, 0, win);
        for (int t = 0; t < np; t++) {
            MPI_Accumulate(&v, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win);
            MPI_Put(&v, 1, MPI_INT, t, 1 + me, 1, MPI_INT, win);
        }
        MPI_Win_complete(win);
        MPI_Win_wait(win);
    }
    MPI_Group_free(&g);
    MPI_Barrier(MPI_COMM_WORLD);
    if (noload) {
        MPI_Win_lock_all(0, win);
        MPI_Get(got, 16, MPI_INT, me, 0, 16, MPI_INT, win);
        MPI_Win_unlock_all(win);
    } else {
        local_begin(epoch, win);
        memcpy(got, w, sizeof(got));
        local_end(epoch, win);
    }
    CHECKM(got[0] == np * (np + 1) / 2, "sum %d", got[0]);
    for (int o = 0; o < np; o++)
        CHECKM(got[1 + o] == o + 1, "put from %d: %d", o, got[1 + o]);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int *w;
    char val[256];
    static const struct {
        const char *hint;
        const char *uses[3];
    } cases[] = {
        {"lockall", {"lockall"}},
        {"fence", {"fence"}},
        {"lock,pscw", {"lock", "pscw"}},
        {"lock,lockall,fence,pscw", {"lock", "lockall", "fence"}},
    };
    for (int c = 0; c < (int)(sizeof(cases) / sizeof(cases[0])); c++) {
        MPI_Win win = make("epochs_used", cases[c].hint, NULL, NULL, &w);
        for (int u = 0; u < 3 && cases[c].uses[u]; u++)
            use(win, w, cases[c].uses[u], 0);
        info_value(win, "epochs_used", val, sizeof(val));
        if (ghosts_expected())
            CHECK(!strcmp(val, cases[c].hint), "epochs_used reads back as \"%s\", set \"%s\"", val, cases[c].hint);
        else
            CHECK(val[0] == 0 || !strcmp(val, cases[c].hint), "epochs_used reads back as \"%s\"", val);
        MPI_Win_free(&win);
    }

    MPI_Win win = make("no_local_load_store", "true", "epochs_used", "lockall", &w);
    use(win, w, "lockall", 1);
    info_value(win, "no_local_load_store", val, sizeof(val));
    MPI_Win_free(&win);

    const char *async[2] = {"off", "on"};
    for (int a = 0; a < 2; a++) {
        win = make("async_config", async[a], NULL, NULL, &w);
        use(win, w, a ? "lock" : "fence", 0);
        info_value(win, "async_config", val, sizeof(val));
        /* Without ghosts (GHOST_NG=0), a window that spans nodes is MPICH's
         * own and says so. */
        const char *ng = getenv("GHOST_NG");
        int no_ghosts = ng && !strcmp(ng, "0");
        CHECK(val[0] == 0 || !strcmp(val, async[a]) || (no_ghosts && !strcmp(val, "off")),
              "async_config reads back as \"%s\"", val);
        MPI_Win_free(&win);
    }

    win = make("accumulate_ops", "same_op", "ghost_test_unknown_key", "whatever", &w);
    use(win, w, "lockall", 0);
    info_value(win, "accumulate_ops", val, sizeof(val));
    CHECK(val[0] == 0 || !strcmp(val, "same_op"), "accumulate_ops reads back as \"%s\"", val);
    MPI_Win_free(&win);
    return rma_finish();
}

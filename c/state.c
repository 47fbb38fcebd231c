/*
 * A window's redirection state: the one place it changes
 * (ghost_win_set_redirect, at an agreement point), with what records each
 * change: the transition counters, the windows and windows_redirected
 * gauges of the node, and, under GHOST_TRACE, the trace (Go's
 * ghostSwitched).
 */
#include "counters.h"
#include "win.h"

/* Whether this process speaks for w on its node: the window's lowest user
 * there (slot 0), so that each window counts once per node. */
static int leads(const ghost_win_t *w) { return !w->plain && w->t && w->t[w->rank].slot == 0; }

void ghost_count_window(const ghost_win_t *w, int delta)
{
    if (!leads(w))
        return;
    GHOST_COUNT_ADD(ghost_counters_mine->windows, delta);
    if (w->redirect && !w->local)
        GHOST_COUNT_ADD(ghost_counters_mine->windows_redirected, delta);
}

int ghost_trace_switches = 0;

void ghost_count_switch(const ghost_win_t *w, int on, int point)
{
    if (ghost_trace_switches)
        ghostSwitched(w->id, on, point);
    if (leads(w))
        GHOST_COUNT_ADD(ghost_counters_mine->transitions[point][on ? GHOST_TO_GHOST : GHOST_TO_DIRECT], 1);
}

void ghost_win_set_redirect(ghost_win_t *w, int on, int point)
{
    on = on != 0;
    if (__atomic_load_n(&w->redirect, __ATOMIC_RELAXED) == on)
        return;
    __atomic_store_n(&w->redirect, on, __ATOMIC_RELAXED);
    ghost_count_switch(w, on, point);
    if (leads(w))
        GHOST_COUNT_ADD(ghost_counters_mine->windows_redirected, on ? 1 : -1);
}

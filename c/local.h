/*
 * Node-local windows: an MPI_Win_allocate window whose group lies on one
 * node is served entirely in the node's shared memory. Every process maps
 * every segment, so operations are loads, stores and reductions done by the
 * origin itself, locks and accumulate atomicity live in a control block
 * beside each segment, and no ghost and no MPI progress is involved: an
 * operation completes while its target computes, by construction.
 *
 * The data plane of these windows is in local.c; rma.c and the epoch calls (epoch.c) hand a
 * window to it when w->local is set. docs/design.md ("The node-local path")
 * explains the protocol and why it keeps MPI's guarantees.
 */
#ifndef GHOST_LOCAL_H_INCLUDED
#define GHOST_LOCAL_H_INCLUDED

#include "win.h"

/* The control block at the end of every rank's segment. Line 0 is touched by
 * every origin that locks or accumulates to this rank; line 1 is the
 * window's barrier, used in rank 0's block only; line 2 is written once by
 * the owner before the window is returned. */
typedef struct ghost_local_ctl {
    uint32_t lock; /* GHOST_LOCAL_EXCL, or the number of shared holders */
    uint32_t acc;  /* accumulate mutex: held while an accumulate-type operation applies */
    uint32_t pad0[14];
    uint32_t bar_count; /* ranks arrived at the current barrier */
    uint32_t bar_sense; /* flips when the last one arrives */
    uint32_t pad1[14];
    int64_t size;      /* bytes the owner asked for */
    int64_t disp_unit; /* its disp_unit */
    uint32_t pad2[12];
    /* PSCW counters, 2 * nranks of them: pscw[r] counts the MPI_Win_post
     * calls of target r whose group held this rank; pscw[nranks + r] counts
     * the MPI_Win_complete calls of origin r whose group held this rank. */
    uint32_t pscw[];
} ghost_local_ctl_t;

enum { GHOST_LOCAL_EXCL = 0x80000000u };

/* The bytes of a control block for a window of nranks processes. */
MPI_Aint ghost_local_ctl_bytes(int nranks);

/* MPI_Win_allocate of a node-local window (collective over comm, whose
 * processes all share one node). The epochs and async hints are kept to be
 * reported: every epoch works here, and no operation goes through a ghost. */
int ghost_local_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             const ghost_hints_t *hints, void *baseptr, MPI_Win *win);
int ghost_local_win_free(ghost_win_t *w, MPI_Win *win);

/* Operations. Each returns an MPI error code; the caller raises it. */
int ghost_local_put(ghost_win_t *w, const void *origin, MPI_Count ocount, MPI_Datatype otype,
                    int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype);
int ghost_local_get(ghost_win_t *w, void *origin, MPI_Count ocount, MPI_Datatype otype, int target,
                    MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype);
/* Accumulate, and with result != NULL get-accumulate and fetch-and-op; kind
 * is the GHOST_OP_* it is counted as. */
int ghost_local_acc(ghost_win_t *w, int kind, const void *origin, MPI_Count ocount, MPI_Datatype otype,
                    void *result, MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint disp,
                    MPI_Count tcount, MPI_Datatype ttype, MPI_Op op);
/* Fetch-and-op or get-accumulate with MPI_NO_OP (kind) of count elements
 * of a predefined type of 1, 2, 4 or 8 bytes, aligned, at a same-node
 * target of a window that spans nodes: element-wise atomic loads. */
int ghost_local_read(ghost_win_t *w, int kind, void *result, int target, MPI_Aint disp, MPI_Count count,
                     MPI_Datatype type);
int ghost_local_cas(ghost_win_t *w, const void *origin, const void *compare, void *result,
                    MPI_Datatype type, int target, MPI_Aint disp);
/* A request that is already complete, for the request-based operations:
 * their data has moved when they return. */
int ghost_local_request(MPI_Request *req);

/* Synchronization. */
int ghost_local_lock(ghost_win_t *w, int type, int target, int assert);
int ghost_local_unlock(ghost_win_t *w, int target);
int ghost_local_lock_all(ghost_win_t *w, int assert);
int ghost_local_unlock_all(ghost_win_t *w);
int ghost_local_flush(ghost_win_t *w, int target); /* MPI_PROC_NULL-safe; -1: every target */
int ghost_local_fence(ghost_win_t *w, int assert);
int ghost_local_post(ghost_win_t *w, const int *ranks, int n, int assert);
int ghost_local_start(ghost_win_t *w, const int *ranks, int n, int assert);
int ghost_local_complete(ghost_win_t *w);
int ghost_local_wait(ghost_win_t *w, int block, int *done);

#endif

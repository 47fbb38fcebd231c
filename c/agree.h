/*
 * Agreement points of GHOST_ASYNC=auto (agree.c): the ballot every point
 * casts, and the implicit points at MPI_Barrier.
 */
#ifndef GHOST_AGREE_H_INCLUDED
#define GHOST_AGREE_H_INCLUDED

#include <mpi.h>

/* Casts this process's ballot (ghost_vote) over comm, whose ranks all call
 * it: *vote gets the ballot cast, *agreed the window-wide decision
 * (ghost_agree, ghost_decide: adapt/predict.c) for a window whose state is current (1 on, 0 off, -1 none
 * yet), or -1 when the allreduce failed. */
int ghost_ballot(MPI_Comm comm, int current, int *vote, int *agreed);

/* The ballot of a window's own agreement point, a fence or a symmetric
 * MPI_Win_set_info, which every rank of w calls: w->ballot gets the ballot
 * cast, *agreed the decision for w's state (-1 when the allreduce failed).
 * Nonblocking, so that a rank waiting in it for the others answers
 * switches outside collectives (quiesce.c) on w: in a program that closes
 * each step with unlock_all and a fence, the rank that finishes its
 * operations first would otherwise never answer the one still issuing, who
 * waited out the attempt's deadline. */
struct ghost_win;
int ghost_window_ballot(struct ghost_win *w, int *agreed);

/* MPICH's barrier, for Ghost's own synchronization, which must never be
 * taken for the application's (an implicit point) nor wait on ranks that
 * take another branch of the intercepted MPI_Barrier. */
int ghost_real_barrier(MPI_Comm comm);

/* Nonzero when implicit points may switch windows: GHOST_ASYNC=auto and not
 * MPI_THREAD_MULTIPLE, where another thread could issue an operation
 * between the check that every operation is complete and the switch. Set
 * by Go at MPI_Init. */
extern int ghost_implicit_points;

#endif

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

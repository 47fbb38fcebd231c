/*
 * The node arena: one shared-memory segment per node, created at MPI_Init
 * and mapped by every process of the node, users and ghosts alike. Each user
 * owns one part of it and carves window memory out of that part, so that a
 * window whose memory must be shared on the node costs no MPI object and no
 * shared-memory segment of its own.
 *
 * MPICH's MPI_Win_allocate_shared creates, sizes and maps a new segment for
 * every window, about 22 us more per window than a window without shared
 * memory (bench/results/2026-11-25-node-local-allocation.md); Global
 * Arrays creates hundreds of windows per NWChem run. The arena pays that
 * once per job. Its file is sparse: memory is used only where windows are,
 * and given back when a large window is freed.
 *
 * Every address in the arena has the same offset from the arena's base in
 * every process of the node, so processes exchange offsets, never pointers.
 */
#ifndef GHOST_ARENA_H_INCLUDED
#define GHOST_ARENA_H_INCLUDED

#include <mpi.h>

/* Collective over node, the processes of one node. Every process maps
 * nparts parts of part_bytes each; the caller owns part my_part, or none
 * with my_part = -1 (a ghost). When the segment cannot be made on some
 * process, no process of the node has an arena (ghost_arena_ready() is 0)
 * and windows fall back to a segment of their own; the return value is an
 * MPI error only when the node's processes could not even agree. */
int ghost_arena_setup(MPI_Comm node, int nparts, int my_part, MPI_Aint part_bytes);

/* Whether this process has an arena. */
int ghost_arena_ready(void);

/* bytes (rounded up to a cache line) from this process's part, or NULL
 * when the part has no room or there is no arena. Thread-safe. */
void *ghost_arena_alloc(MPI_Aint bytes);

/* Gives back what ghost_arena_alloc(bytes) returned at p. The caller makes
 * sure that no process still reads or writes it (MPI_Win_free synchronizes
 * the window's processes). */
void ghost_arena_free(void *p, MPI_Aint bytes);

/* The arena of this node as mapped in this process, its length, and the
 * offset of p inside it (p must lie in it). */
char *ghost_arena_base(void);
MPI_Aint ghost_arena_bytes(void);
MPI_Aint ghost_arena_offset(const void *p);

/* The offset of part i from the arena's base, and a part's length. */
MPI_Aint ghost_arena_part_offset(int part);
MPI_Aint ghost_arena_part_bytes(void);

/* Whether p was allocated from this process's part. */
int ghost_arena_owns(const void *p);

#endif

/* Polling loops of atomic reads (bench/results/2026-11-25-polling-loops.md):
 * in one lock_all epoch every rank loops argv[1] times over
 * MPI_Fetch_and_op(MPI_NO_OP) on rank 0's counter + flush and
 * MPI_Get_accumulate(MPI_NO_OP) on its right neighbour + flush, adding 1
 * to rank 0's counter every 100th iteration. Rank 0 prints the loop's time
 * and the counter (ranks x iterations / 100 when right). Run by hand:
 *   mpicc -O2 -o polling bench/programs/polling.c
 *   build/ghost run -n 3 -- ./polling 20000 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int c,char**v){MPI_Init(&c,&v);int me,n;MPI_Comm_rank(MPI_COMM_WORLD,&me);MPI_Comm_size(MPI_COMM_WORLD,&n);
int iters=c>1?atoi(v[1]):20000; long *b; MPI_Win w;
MPI_Win_allocate(64,sizeof(long),MPI_INFO_NULL,MPI_COMM_WORLD,&b,&w); b[0]=0; MPI_Barrier(MPI_COMM_WORLD);
MPI_Win_lock_all(0,w); double t=MPI_Wtime(); long one=1,r,dummy=0;
for(int i=0;i<iters;i++){ if(i%100==me) MPI_Accumulate(&one,1,MPI_LONG,0,0,1,MPI_LONG,MPI_SUM,w);
  MPI_Fetch_and_op(&dummy,&r,MPI_LONG,0,0,MPI_NO_OP,w); MPI_Win_flush(0,w);
  MPI_Get_accumulate(&dummy,1,MPI_LONG,&r,1,MPI_LONG,(me+1)%n,0,1,MPI_LONG,MPI_NO_OP,w); MPI_Win_flush((me+1)%n,w);}
MPI_Win_unlock_all(w); double dt=MPI_Wtime()-t; MPI_Barrier(MPI_COMM_WORLD);
if(me==0) printf("poll %d iters: %.3f s (%.2f us/iter) counter %ld\n",iters,dt,dt/iters*1e6,b[0]);
MPI_Win_free(&w);MPI_Finalize();}

! The Fortran view of MPI_COMM_WORLD under Ghost: libmpifort calls the C
! MPI_ symbols, so the same wrappers apply. Prints one summary line per rank.
program world
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, total, half, hsize, expected
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Comm_size(half, hsize, ierr)
  expected = nprocs / 2
  if (mod(rank, 2) == 0) expected = (nprocs + 1) / 2
  print '(A,I0,A,I0,A,I0,A,I0,A,I0)', 'fortran rank ', rank, ' of ', nprocs, &
       ' sum ', total, ' half ', hsize, ' expected ', expected
  call MPI_Comm_free(half, ierr)
  call MPI_Finalize(ierr)
end program world

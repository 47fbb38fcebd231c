! The mpi_f08 bindings of MPICH call the PMPI_ entry points directly; Ghost
! defines those too, so an f08 program sees the same user world.
program world_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, total, hsize, expected
  type(MPI_Comm) :: half
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_size(half, hsize)
  expected = nprocs / 2
  if (mod(rank, 2) == 0) expected = (nprocs + 1) / 2
  print '(A,I0,A,I0,A,I0,A,I0,A,I0)', 'fortran rank ', rank, ' of ', nprocs, &
       ' sum ', total, ' half ', hsize, ' expected ', expected
  call MPI_Comm_free(half)
  call MPI_Finalize()
end program world_f08

! An errhandler made in Fortran and set on MPI_COMM_WORLD fires with
! MPI_COMM_WORLD's handle, and on a communicator duplicated from the world
! (which inherits it) with the duplicate's: Ghost runs it on its internal
! user world through a trampoline that passes MPI_COMM_WORLD instead
! (c/world.c). Each error is a send to a rank that does not exist. Prints
! one summary line per rank in check.h's format.
module errh_state
  implicit none
  integer :: seen_comm = -1, seen_code = 0, fired = 0
end module errh_state

subroutine record(comm, code)
  use errh_state
  implicit none
  integer :: comm, code
  seen_comm = comm
  seen_code = code
  fired = fired + 1
end subroutine record

program errh_world
  use mpi
  use errh_state
  implicit none
  external :: record
  integer :: ierr, rank, nprocs, eh, dup, buf, checks, failed
  checks = 0
  failed = 0
  buf = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_create_errhandler(record, eh, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh, ierr)

  call MPI_Send(buf, 1, MPI_INTEGER, nprocs + 5, 0, MPI_COMM_WORLD, ierr)
  call check(fired == 1, 'the handler fired once for the world', fired, 1)
  call check(seen_comm == MPI_COMM_WORLD, 'the handler saw MPI_COMM_WORLD', seen_comm, MPI_COMM_WORLD)
  call check(ierr /= MPI_SUCCESS .and. seen_code == ierr, 'the handler saw the error returned', seen_code, ierr)

  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  fired = 0
  call MPI_Send(buf, 1, MPI_INTEGER, nprocs + 5, 0, dup, ierr)
  call check(fired == 1, 'the handler fired once for the duplicate', fired, 1)
  call check(seen_comm == dup, 'the handler saw the duplicate', seen_comm, dup)
  call MPI_Comm_free(dup, ierr)

  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  call MPI_Errhandler_free(eh, ierr)
  print '(A,I0,A,I0,A,I0,A,I0,A)', 'rank ', rank, ' of ', nprocs, ': ', checks, ' checks, ', failed, ' failed'
  call MPI_Finalize(ierr)
contains
  subroutine check(ok, what, got, want)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: got, want
    checks = checks + 1
    if (.not. ok) then
      failed = failed + 1
      print '(A,I0,A,A,A,I0,A,I0)', 'FAIL rank ', rank, ' ', what, ': ', got, ', want ', want
    end if
  end subroutine check
end program errh_world

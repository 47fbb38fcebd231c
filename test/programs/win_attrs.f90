! What Fortran reads of predefined attributes under Ghost must be what C
! reads: MPICH's Fortran bindings go through MPII_Comm_get_attr and
! MPII_Win_get_attr, Open MPI's read them inside libmpi, neither through the
! C calls (c/fortran.c). A window from
! MPI_WIN_ALLOCATE reports the ALLOCATE flavor, the size asked for, its
! disp_unit, the UNIFIED model and its base; MPI_UNIVERSE_SIZE leaves the
! ghosts out. Prints one summary line per rank in check.h's format.
program win_attrs
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, win, disp, checks, failed
  integer(kind=MPI_ADDRESS_KIND) :: val, bytes, base
  logical :: flag
  checks = 0
  failed = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, val, flag, ierr)
  call check(.not. flag .or. val == nprocs, 'MPI_UNIVERSE_SIZE', val, int(nprocs, MPI_ADDRESS_KIND))

  disp = 4
  bytes = 100 + 4 * rank
  call MPI_Win_allocate(bytes, disp, MPI_INFO_NULL, MPI_COMM_WORLD, base, win, ierr)
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, val, flag, ierr)
  call check(flag .and. val == MPI_WIN_FLAVOR_ALLOCATE, 'MPI_WIN_CREATE_FLAVOR', val, &
       int(MPI_WIN_FLAVOR_ALLOCATE, MPI_ADDRESS_KIND))
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, val, flag, ierr)
  call check(flag .and. val == bytes, 'MPI_WIN_SIZE', val, bytes)
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, val, flag, ierr)
  call check(flag .and. val == disp, 'MPI_WIN_DISP_UNIT', val, int(disp, MPI_ADDRESS_KIND))
  call MPI_Win_get_attr(win, MPI_WIN_MODEL, val, flag, ierr)
  call check(flag .and. val == MPI_WIN_UNIFIED, 'MPI_WIN_MODEL', val, int(MPI_WIN_UNIFIED, MPI_ADDRESS_KIND))
  call MPI_Win_get_attr(win, MPI_WIN_BASE, val, flag, ierr)
  call check(flag .and. val == base, 'MPI_WIN_BASE', val, base)
  call MPI_Win_free(win, ierr)

  print '(A,I0,A,I0,A,I0,A,I0,A)', 'rank ', rank, ' of ', nprocs, ': ', checks, ' checks, ', failed, ' failed'
  call MPI_Finalize(ierr)
contains
  subroutine check(ok, what, got, want)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: got, want
    checks = checks + 1
    if (.not. ok) then
      failed = failed + 1
      print '(A,I0,A,A,A,I0,A,I0)', 'FAIL rank ', rank, ' ', what, ': ', got, ', want ', want
    end if
  end subroutine check
end program win_attrs

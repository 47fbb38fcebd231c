! Coarray events while images compute. Image 1 posts NPOST events to every
! other image while those images compute for COMPUTE_S seconds outside the
! coarray runtime (and so outside MPI). Each event post is an RMA operation
! on the target image's MPI_Win_allocate window. Under Ghost it completes at
! once, served by a ghost; under plain MPICH it waits until the target calls
! MPI again. Image 1 reports how long its posts took and prints
! "posts_completed_while_targets_computed=1" when they all returned before
! the targets stopped computing. Each target then checks with event_query
! that every post had arrived by the end of its computation, and replies
! with its own event post. The program ends with "Test passed." when every
! count is right.
!
! usage: event_compute [compute_s [npost]]   (default 3.0 5)
program event_compute
  use iso_fortran_env, only: event_type, int64
  implicit none
  type(event_type) :: ev[*]     ! image 1 -> every other image
  type(event_type) :: back[*]   ! every other image -> image 1
  integer :: me, n, img, i, cnt, npost, bad
  integer, save :: nbad[*]
  real(8) :: compute_s, t0, tpost, dummy
  character(len=32) :: arg

  compute_s = 3.0d0
  npost = 5
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) compute_s
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) npost
  end if
  me = this_image()
  n = num_images()
  if (n < 2) error stop "event_compute needs at least 2 images"
  nbad = 0
  sync all

  if (me == 1) then
    ! Let the targets get well into their computation first.
    dummy = spin(0.1d0 * compute_s)
    t0 = wtime()
    do i = 1, npost
      do img = 2, n
        event post (ev[img])
      end do
    end do
    tpost = wtime() - t0
    write (*, '(a,i0,a,i0,a,f8.4,a,f6.2,a)') "poster: ", npost * (n - 1), " event posts to ", n - 1, &
      " image(s) took ", tpost, " s while the targets computed for ", compute_s, " s"
    if (tpost < 0.5d0 * compute_s) then
      write (*, '(a)') "poster: posts_completed_while_targets_computed=1"
    else
      write (*, '(a)') "poster: posts_completed_while_targets_computed=0"
    end if
    event wait (back, until_count=n - 1)
    write (*, '(a)') "poster: every target replied"
  else
    dummy = spin(compute_s)
    call event_query(ev, cnt)
    write (*, '(a,i0,a,i0,a,i0,a)') "image ", me, ": ", cnt, " of ", npost, &
      " events had arrived when its computation ended"
    if (cnt > npost) nbad = nbad + 1
    event wait (ev, until_count=npost)
    call event_query(ev, cnt)
    if (cnt /= 0) then
      write (*, '(a,i0,a,i0)') "FAIL image ", me, ": event count after wait is ", cnt
      nbad = nbad + 1
    end if
    event post (back[1])
  end if

  sync all
  ! A second round, in lockstep, checks the counts again.
  if (me /= 1) event post (ev[1])
  if (me == 1) then
    event wait (ev, until_count=n - 1)
    call event_query(ev, cnt)
    if (cnt /= 0) nbad = nbad + 1
  end if
  sync all
  bad = nbad
  call co_sum(bad)
  if (me == 1) then
    if (bad == 0) then
      write (*, '(a)') "Test passed."
    else
      write (*, '(a,i0,a)') "Test failed: ", bad, " bad count(s)"
      error stop 1
    end if
  end if

contains

  real(8) function wtime()
    integer(int64) :: c, r
    call system_clock(c, r)
    wtime = real(c, 8) / real(r, 8)
  end function

  ! Busy work for sec seconds, with no coarray (and so no MPI) call.
  real(8) function spin(sec)
    real(8), intent(in) :: sec
    real(8) :: end_t, x
    integer :: k
    x = 1.0d0
    end_t = wtime() + sec
    do while (wtime() < end_t)
      do k = 1, 1000
        x = x * 1.0000001d0 + 1.0d-9
      end do
    end do
    spin = x
  end function
end program

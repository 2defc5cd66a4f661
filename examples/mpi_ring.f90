! mpi_ring.f90 - Fortran 90 MPI test program (uses "use mpi", not mpi_f08)
! for the tracer's Fortran bindings: an iterative ring with a known structure.
!
! Usage: mpi_ring [N]      N = iterations (default 50; a non-negative integer)
! Bad argument: usage on stderr, exit code 2 (before MPI is initialized).
!
! Per iteration (it = 1..N):
!   compute_step (light deterministic floating-point work)
!   MPI_Sendrecv to the right neighbour / from the left one, with a real status
!     array (source and tag are checked)
!   MPI_Isend to the left, MPI_Irecv from the right, MPI_Waitall: with
!     MPI_STATUSES_IGNORE on even iterations, a real statuses array on odd ones
!   MPI_Allreduce (SUM) of the local value
!   every 10th iteration (it = 10, 20, ...): MPI_Bcast from rank 0, MPI_Barrier
! Before the loop: MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Comm_split
! (even/odd ranks). After it: MPI_Reduce on the split communicator,
! MPI_Comm_free, MPI_Gather of (count, checksum) to rank 0, MPI_Finalize.
! With 1 rank the neighbours are the rank itself.
!
! COUNTED CALLS: every MPI call except MPI_Comm_rank and MPI_Comm_size.
! Per rank, for N iterations and any number of ranks:
!
!   calls = 6 + 5*N + 2*(N/10)          (N/10 is integer division)
!
!   2 before the loop (Init, Comm_split)
!   5 per iteration   (Sendrecv, Isend, Irecv, Waitall, Allreduce)
!   2 per 10th iter.  (Bcast, Barrier)
!   4 at the end      (Reduce, Comm_free, Gather, Finalize)
! e.g. N=50: 266, N=0: 6. The reported count includes the final MPI_Gather and
! MPI_Finalize (checked after MPI_Finalize; a mismatch gives exit code 1).
!
! OUTPUT: rank 0 prints, in rank order, one line per rank on stdout:
!   mpi_ring: rank R calls N checksum X     (X formatted like C's %.6e)
! Everything reduced across ranks is an integer-valued double, so the
! checksum is exact in any reduction order and identical from run to run.
!
! Every MPI call sits on one line ending with a "CALLSITE:<name>" comment.

program mpi_ring
  use mpi
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none

  integer, parameter :: nwork = 200000
  integer :: ierr, rank, nranks, left, right, it, niter, ncalls, r
  integer :: split_comm, my_count, arglen, argstat, ios, dpt, comm
  integer :: req(2), stat(MPI_STATUS_SIZE), stats(MPI_STATUS_SIZE, 2)
  double precision :: sendv, recvv, local, total, checksum, split_sum, qval
  double precision :: abuf(4), bbuf(4), params(2), mine(2)
  double precision, allocatable :: allv(:,:)
  character(len=64) :: arg

  ! ---- arguments -------------------------------------------------------
  niter = 50
  if (command_argument_count() > 1) call usage()
  if (command_argument_count() == 1) then
     call get_command_argument(1, arg, arglen, argstat)
     if (argstat /= 0 .or. arglen == 0) call usage()
     if (verify(trim(arg), '0123456789') /= 0) call usage()
     read (arg, *, iostat=ios) niter
     if (ios /= 0 .or. niter < 0) call usage()
  end if

  ncalls = 0
  ncalls = ncalls + 1
  call MPI_Init(ierr) ! CALLSITE:f_init
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  ncalls = ncalls + 1
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, split_comm, ierr) ! CALLSITE:f_comm_split

  dpt = MPI_DOUBLE_PRECISION
  comm = MPI_COMM_WORLD
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  params = (/ 1.0d0, 0.0d0 /)
  checksum = 0.0d0
  local = 1.0d0 + 0.125d0 * rank

  ! ---- iterations ------------------------------------------------------
  do it = 1, niter
     local = compute_step(local, params(1) * (1.0d0 + 0.125d0 * rank))

     ! ring to the right, blocking, with a real status
     sendv = local
     ncalls = ncalls + 1
     call MPI_Sendrecv(sendv, 1, dpt, right, 10, recvv, 1, dpt, left, 10, comm, stat, ierr) ! CALLSITE:f_sendrecv
     if (stat(MPI_SOURCE) /= left .or. stat(MPI_TAG) /= 10) then
        write (error_unit, '(A)') 'mpi_ring: unexpected Sendrecv status'
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
     end if

     ! ring to the left, non-blocking
     abuf = (/ recvv, dble(rank), dble(it), 1.0d0 /)
     ncalls = ncalls + 1
     call MPI_Isend(abuf, 4, dpt, left, 20, comm, req(1), ierr) ! CALLSITE:f_isend
     ncalls = ncalls + 1
     call MPI_Irecv(bbuf, 4, dpt, right, 20, comm, req(2), ierr) ! CALLSITE:f_irecv
     ncalls = ncalls + 1
     if (mod(it, 2) == 0) then
        call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr) ! CALLSITE:f_waitall_ignore
     else
        call MPI_Waitall(2, req, stats, ierr) ! CALLSITE:f_waitall_status
        if (stats(MPI_SOURCE, 2) /= right .or. stats(MPI_TAG, 2) /= 20) then
           write (error_unit, '(A)') 'mpi_ring: unexpected Waitall status'
           call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
        end if
     end if

     qval = quantize(bbuf(1))
     ncalls = ncalls + 1
     call MPI_Allreduce(qval, total, 1, dpt, MPI_SUM, comm, ierr) ! CALLSITE:f_allreduce
     checksum = checksum + total / 1048576.0d0 + local

     if (mod(it, 10) == 0) then
        if (rank == 0) params(1) = 1.0d0 + 0.25d0 * mod(it / 10, 4)
        ncalls = ncalls + 1
        call MPI_Bcast(params, 2, dpt, 0, comm, ierr) ! CALLSITE:f_bcast
        ncalls = ncalls + 1
        call MPI_Barrier(comm, ierr) ! CALLSITE:f_barrier
     end if
  end do

  ! ---- end of run ------------------------------------------------------
  split_sum = 0.0d0
  qval = quantize(checksum)
  ncalls = ncalls + 1
  call MPI_Reduce(qval, split_sum, 1, dpt, MPI_SUM, 0, split_comm, ierr) ! CALLSITE:f_reduce_split
  ncalls = ncalls + 1
  call MPI_Comm_free(split_comm, ierr) ! CALLSITE:f_comm_free

  ! the reported count includes this gather and MPI_Finalize
  my_count = ncalls + 2
  mine = (/ dble(my_count), checksum /)
  if (rank == 0) then
     allocate (allv(2, nranks))
  else
     allocate (allv(2, 1))
  end if
  ncalls = ncalls + 1
  call MPI_Gather(mine, 2, dpt, allv, 2, dpt, 0, comm, ierr) ! CALLSITE:f_gather

  if (rank == 0) then
     do r = 0, nranks - 1
        write (*, '(A,I0,A,I0,A,A)') 'mpi_ring: rank ', r, ' calls ', nint(allv(1, r + 1)), &
             ' checksum ', trim(fmt_e6(allv(2, r + 1)))
     end do
     flush (6)
  end if
  deallocate (allv)

  ncalls = ncalls + 1
  call MPI_Finalize(ierr) ! CALLSITE:f_finalize

  if (ncalls /= my_count) then
     write (error_unit, '(A,I0,A,I0,A,I0)') 'mpi_ring: rank ', rank, ' counted ', ncalls, &
          ' calls, reported ', my_count
     call exit_with(1)
  end if

contains

  ! Light, deterministic floating-point work.
  double precision function compute_step(x0, scale)
    double precision, intent(in) :: x0, scale
    double precision :: x
    integer :: i
    x = x0
    do i = 1, nwork
       x = 0.999d0 * x + 0.001d0 * scale * (1.0d0 + 1.0d-6 * mod(i, 7))
    end do
    compute_step = x
  end function compute_step

  ! Integer-valued double: sums are exact in any order.
  double precision function quantize(x)
    double precision, intent(in) :: x
    quantize = anint(x * 1048576.0d0)
  end function quantize

  ! Same text as C's printf("%.6e") for exponents of magnitude < 100.
  function fmt_e6(x) result(s)
    double precision, intent(in) :: x
    character(len=24) :: s
    integer :: k
    write (s, '(ES14.6E2)') x
    s = adjustl(s)
    k = index(s, 'E')
    if (k > 0) s(k:k) = 'e'
  end function fmt_e6

  subroutine usage()
    write (error_unit, '(A)') 'usage: mpi_ring [ITERATIONS]   (non-negative integer, default 50)'
    call exit_with(2)
  end subroutine usage

  subroutine exit_with(code)
    integer, intent(in) :: code
    select case (code)
    case (1)
       stop 1, quiet=.true.
    case default
       stop 2, quiet=.true.
    end select
  end subroutine exit_with

end program mpi_ring

! fortran_app.f90: a Fortran program of our own for the tracer's names of
! Fortran code (tests/e2e/fortran_names.sh): an MPI+OpenMP time step of a module's
! two procedures, each an OpenMP loop, then an MPI_Allreduce in the module's
! exchange, for N steps: two bursts between the same call site, reached
! through stage_one and stage_two. gfortran names them
! __stages_MOD_stage_one / __stages_MOD_stage_two and their outlined loop
! bodies __stages_MOD_stage_one._omp_fn.0 ...; the tracer must show them as
! stages::stage_one, stages::stage_one._omp_fn.0.
!
! Usage: fortran_app [N]    N = steps (default 40)
! Output (rank 0): "fortran_app: steps N sum S" (S depends only on N and the ranks).
module stages
  use mpi
  implicit none
  integer, parameter :: n = 200000
contains
  subroutine stage_one(a, s)                                   ! LINE:stage_one
    double precision, intent(inout) :: a(n)
    double precision, intent(out) :: s
    integer :: i
    s = 0
    !$omp parallel do reduction(+:s)
    do i = 1, n
      a(i) = sqrt(a(i) + dble(i)) * 0.5d0
      s = s + a(i)
    end do
    !$omp end parallel do
    call exchange(s)
  end subroutine stage_one

  subroutine stage_two(a, s)                                   ! LINE:stage_two
    double precision, intent(inout) :: a(n)
    double precision, intent(out) :: s
    integer :: i, k
    s = 0
    !$omp parallel do reduction(+:s) private(k)
    do i = 1, n
      do k = 1, 4
        a(i) = cos(a(i)) + 1.0d0
      end do
      s = s + a(i)
    end do
    !$omp end parallel do
    call exchange(s)
  end subroutine stage_two

  subroutine exchange(s)
    double precision, intent(inout) :: s
    double precision :: local
    integer :: ierr
    local = s
    call MPI_Allreduce(local, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end subroutine exchange
end module stages

program fortran_app
  use mpi
  use stages
  implicit none
  double precision, allocatable :: a(:)
  double precision :: s1, s2, total
  integer :: steps, step, nargs, status, rank, ierr
  character(len=32) :: arg
  steps = 40
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=status) steps
    if (status /= 0 .or. steps < 0) then
      write (0, '(a)') 'usage: fortran_app [N]   (N: a non-negative integer)'
      stop 2
    end if
  end if
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  allocate(a(n))
  a = 1.0d0
  total = 0
  do step = 1, steps
    call stage_one(a, s1)
    call stage_two(a, s2)
    total = total + s1 + s2
  end do
  if (rank == 0) write (*, '(a,i0,a,f0.3)') 'fortran_app: steps ', steps, ' sum ', total
  call MPI_Finalize(ierr)
end program fortran_app

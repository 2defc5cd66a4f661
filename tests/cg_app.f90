! cg_app.f90 - test proxy of the shape of a Fortran conjugate-gradient
! solver (module procedures, MPI, OpenMP loops, as TeaLeaf-like codes are
! written), with a KNOWN structure, for checking that hcafold tells apart the
! bursts that run between the same two MPI call sites:
!
!   - every dot product goes through ONE MPI_Allreduce, in cg_kernels::allsum;
!   - cg_solver::cg_solve calls allsum from two lines; one CG iteration is
!         calc_w   (w = A p: 3 work units)   then allsum (p.w)    line ALLSUM_PW
!         calc_ur  (1 work unit)             then allsum (r.r)    line ALLSUM_RR
!         calc_p   (1 work unit)
!     so, with one rank, the bursts between consecutive reductions are two code
!     paths with the same opening and closing call site (allsum's one
!     MPI_Allreduce): calc_ur (from the p.w reduction to the r.r one) and
!     calc_p then calc_w (from the r.r reduction to the next p.w one), told
!     apart only by where cg_solve calls allsum (gfortran's module procedures
!     have no DWARF scope libdw finds: their call paths are keyed by symbol and
!     line, docs/trace-format.md);
!   - bursts are short (a few hundred microseconds): at a 2 ms sampling
!     period most instances hold no sample, so the samples alone cannot
!     tell the two paths apart.
!
! Usage: cg_app_f [ITERATIONS [CELLS]]  (defaults 400 and 20000)
! Output: rank 0 prints "cg_app_f: ranks P checksum X".
! The two calls of allsum in cg_solve end with the comments "ALLSUM_PW" and
! "ALLSUM_RR", so tests can find their line numbers with grep.
module cg_kernels
    use mpi
    implicit none
    integer :: cells = 20000
    double precision, allocatable :: p(:), w(:), r(:), u(:)
contains
    subroutine allsum(value)
        double precision, intent(inout) :: value
        double precision :: total
        integer :: ierr
        call MPI_Allreduce(value, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
        value = total
    end subroutine allsum

    ! one work unit: a loop-carried smoothing sweep (latency bound)
    subroutine sweep(a, b)
        double precision, intent(inout) :: a(:)
        double precision, intent(in) :: b(:)
        integer :: i
        do i = 2, cells
            a(i) = 0.5d0 * a(i) + 0.25d0 * a(i - 1) + 0.25d0 * b(i)
        end do
    end subroutine sweep

    subroutine calc_w(pw)
        double precision, intent(out) :: pw
        integer :: k, i
        do k = 1, 3
            call sweep(w, p)
        end do
        pw = 0d0
        !$omp parallel do reduction(+:pw)
        do i = 1, cells
            pw = pw + p(i) * w(i)
        end do
        !$omp end parallel do
    end subroutine calc_w

    subroutine calc_ur(alpha, rrn)
        double precision, intent(in) :: alpha
        double precision, intent(out) :: rrn
        integer :: i
        call sweep(u, p)
        rrn = 0d0
        !$omp parallel do reduction(+:rrn)
        do i = 1, cells
            r(i) = r(i) - alpha * 1d-9 * w(i)
            rrn = rrn + r(i) * r(i)
        end do
        !$omp end parallel do
    end subroutine calc_ur

    subroutine calc_p(beta)
        double precision, intent(in) :: beta
        integer :: i
        call sweep(p, r)
        !$omp parallel do
        do i = 1, cells
            p(i) = r(i) + beta * 1d-9 * p(i)
        end do
        !$omp end parallel do
    end subroutine calc_p
end module cg_kernels

module cg_solver
    use cg_kernels
    implicit none
contains
    subroutine cg_solve(iterations, rro)
        integer, intent(in) :: iterations
        double precision, intent(out) :: rro
        double precision :: pw, rrn, alpha, beta
        integer :: it
        rro = 1d0
        do it = 1, iterations
            call calc_w(pw)
            call allsum(pw) ! ALLSUM_PW
            alpha = rro / max(pw, 1d-30)
            call calc_ur(alpha, rrn)
            call allsum(rrn) ! ALLSUM_RR
            beta = rrn / max(rro, 1d-30)
            call calc_p(beta)
            rro = rrn
        end do
    end subroutine cg_solve
end module cg_solver

program cg_app_f
    use cg_solver
    implicit none
    integer :: ierr, rank, nranks, iterations, i
    character(len=32) :: arg
    double precision :: rr
    iterations = 400
    if (command_argument_count() >= 1) then
        call get_command_argument(1, arg)
        read (arg, *) iterations
    end if
    if (command_argument_count() >= 2) then
        call get_command_argument(2, arg)
        read (arg, *) cells
    end if
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    allocate (p(cells), w(cells), r(cells), u(cells))
    do i = 1, cells
        p(i) = 1d0 + mod(i * 7 + rank, 17) / 17d0
    end do
    r = p
    w = 0d0
    u = 0d0
    call cg_solve(iterations, rr)
    if (rank == 0) print '(a, i0, a, es12.5)', 'cg_app_f: ranks ', nranks, ' checksum ', rr
    deallocate (p, w, r, u)
    call MPI_Finalize(ierr)
end program cg_app_f

! burst_app.f90: the Fortran twin of burst_app.c (tests/e2e/fold_bursts.sh,
! issue 18): compute bursts of about BURST_US microseconds between two MPI
! calls, stage_a (FRACTION of the work) then stage_b, then MPI_Iprobe; every
! 100th iteration also an MPI_Sendrecv with the ring neighbours. The work is a
! fixed number of loop steps calibrated once on the thread's CPU time, so time
! the tracer spends inside a burst makes it longer, as in a real solver.
! The exact truth, as burst_app.c records it: CLOCK_MONOTONIC right after
! MPI_Iprobe returns, between the stages and right before the next MPI_Iprobe;
! with TRUTH_PREFIX, one line per burst between two MPI_Iprobe (no
! MPI_Sendrecv inside) in TRUTH_PREFIX.RANK, "B start_ns boundary_ns end_ns".
! Usage: burst_app_f [ITERATIONS [BURST_US [FRACTION [TRUTH_PREFIX]]]]
!        (defaults 20000 100 0.4, no truth file)
! Prints "burst_app_f: <checksum>", identical with and without the tracer.
module burst_stages
    use iso_c_binding, only: c_int, c_long, c_int64_t
    implicit none
    type, bind(c) :: timespec
        integer(c_long) :: tv_sec, tv_nsec
    end type timespec
    interface
        integer(c_int) function clock_gettime(clock, ts) bind(c, name='clock_gettime')
            import :: c_int, timespec
            integer(c_int), value :: clock
            type(timespec), intent(out) :: ts
        end function clock_gettime
    end interface
    integer(c_int), parameter :: clock_monotonic = 1
contains
    ! CLOCK_MONOTONIC, ns (the tracer's clock)
    function mono_ns() result(ns)
        integer(c_int64_t) :: ns
        type(timespec) :: ts
        integer(c_int) :: rc
        rc = clock_gettime(clock_monotonic, ts)
        ns = int(ts%tv_sec, c_int64_t) * 1000000000_c_int64_t + int(ts%tv_nsec, c_int64_t)
    end function mono_ns

    ! the same work in both stages (built with -fno-inline: each its own frame)
    function stage_a(steps, a0) result(a)
        integer(8), intent(in) :: steps
        double precision, intent(in) :: a0
        double precision :: a
        integer(8) :: i
        a = a0
        do i = 1, steps
            a = a * 0.9999999d0 + 1d-7
        end do
    end function stage_a

    function stage_b(steps, a0) result(a)
        integer(8), intent(in) :: steps
        double precision, intent(in) :: a0
        double precision :: a
        integer(8) :: i
        a = a0
        do i = 1, steps
            a = a * 0.99999995d0 + 2d-7
        end do
    end function stage_b

    ! loop steps per microsecond of CPU time: the fastest of 7 trials of 5 ms
    function steps_per_us() result(best)
        double precision :: best, t0, t1, a, rate
        integer(8) :: done
        integer :: k
        best = 0
        a = 1
        do k = 1, 7
            call cpu_time(t0)
            done = 0
            do
                a = stage_a(2000_8, a)
                done = done + 2000
                call cpu_time(t1)
                if (t1 - t0 >= 5d-3) exit
            end do
            rate = dble(done) / ((t1 - t0) * 1d6)
            if (rate > best) best = rate
        end do
        if (a < 0) print *, a
    end function steps_per_us
end module burst_stages

program burst_app_f
    use mpi
    use burst_stages
    implicit none
    integer :: ierr, rank, nranks, right, left, status(MPI_STATUS_SIZE)
    integer(8) :: iterations, it, steps, steps_a, steps_b
    double precision :: burst_us, fraction, rate, max_rate, a, mine, theirs, checksum, total
    logical :: flag
    character(len=32) :: arg
    character(len=4096) :: truth
    integer(8), allocatable :: times(:, :)
    integer(8) :: start
    integer :: unit

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    iterations = 20000
    burst_us = 100
    fraction = 0.4d0
    if (command_argument_count() >= 1) then
        call get_command_argument(1, arg)
        read (arg, *) iterations
    end if
    if (command_argument_count() >= 2) then
        call get_command_argument(2, arg)
        read (arg, *) burst_us
    end if
    if (command_argument_count() >= 3) then
        call get_command_argument(3, arg)
        read (arg, *) fraction
    end if
    truth = ''
    if (command_argument_count() >= 4) call get_command_argument(4, truth)
    ! every rank the same work: the fastest calibration (the least disturbed)
    rate = steps_per_us()
    call MPI_Allreduce(rate, max_rate, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    steps = int(burst_us * max_rate, 8)
    steps_a = int(fraction * dble(steps), 8)
    steps_b = steps - steps_a
    right = mod(rank + 1, nranks)
    left = mod(rank + nranks - 1, nranks)
    a = 1
    checksum = 0
    allocate (times(3, 0:iterations - 1))
    start = mono_ns()
    do it = 0, iterations - 1
        times(1, it) = start
        a = stage_a(steps_a, a)
        times(2, it) = mono_ns()
        a = stage_b(steps_b, a)
        times(3, it) = mono_ns()
        call MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, flag, status, ierr)
        start = mono_ns()
        if (mod(it, 100_8) == 99) then
            mine = rank + 1
            call MPI_Sendrecv(mine, 1, MPI_DOUBLE_PRECISION, right, 0, theirs, 1, MPI_DOUBLE_PRECISION, left, 0, &
                              MPI_COMM_WORLD, status, ierr)
            checksum = checksum + theirs
        end if
    end do
    if (a < 0) print *, a
    if (len_trim(truth) > 0) then
        write (arg, '(i0)') rank
        open (newunit=unit, file=trim(truth)//'.'//trim(arg), status='replace', action='write')
        do it = 1, iterations - 1
            ! after an MPI_Sendrecv: another region
            if (mod(it, 100_8) /= 0) write (unit, '(a, i0, 1x, i0, 1x, i0)') 'B ', times(:, it)
        end do
        close (unit)
    end if
    call MPI_Reduce(checksum, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) write (*, '(a, i0)') 'burst_app_f: ', nint(total)
    call MPI_Finalize(ierr)
end program burst_app_f

# survive.sh: traces that survive the end of a job (issue 12). Each fault program
# (tests/fault_app.c) ends abnormally: MPI_Abort in one rank, a segfault in one rank,
# an exit without MPI_Finalize, SIGTERM to mpirun while the ranks wait; and a serial
# program killed by SIGTERM. Each time: the exit status is the untraced run's, every
# rank that could act left its partial definitions, hcafold rebuilds the trace and
# says per rank how it ended and up to when, otf2-print reads the rebuilt trace, and
# hcafold folds it. With a small HCATRACE_TOTAL_MEMORY the events reach the disk during
# the run, so even SIGKILL leaves them.
. "$(dirname "$0")/lib.sh"
APP="$BUILD/tests/fault_app"
[ -x "$APP" ] || APP="$TOP/build/tests/fault_app"
FOLD="$BUILD/bin/hcafold"
export HCATRACE_SAMPLING=5ms # enough samples in the second before the end
# Open MPI kills a rank 1 s after its SIGTERM (odls_base_sigkill_timeout): on a loaded
# machine or under ASan a rank may need longer to write (docs/configuration.md)
export OMPI_MCA_odls_base_sigkill_timeout=10
# the untraced run: the same runtime (the ASan one when sanitized) without the tracer
untraced_mpirun() {
    np=$1
    shift
    if [ "${SANITIZED:-0}" = 1 ]; then
        LD_PRELOAD="$(gcc -print-file-name=libasan.so)" "$MPIRUN" $MPIRUN_FLAGS -np "$np" "$@"
    else
        "$MPIRUN" $MPIRUN_FLAGS -np "$np" "$@"
    fi
}
ITERS=120

# term_after SECONDS OUT ERR COMMAND...: runs COMMAND (its own process: $! is its pid),
# sends it SIGTERM after SECONDS; returns its exit status
term_after() {
    secs=$1 o=$2 e=$3
    shift 3
    "$@" > "$o" 2> "$e" &
    p=$!
    sleep "$secs"
    kill -TERM $p
    wait $p
}

# fault_case NAME MODE EXPECTED-END-OF-RANK-1: runs plain and traced, checks all of it
fault_case() {
    name=$1 mode=$2 how1=$3
    dir=$(fresh_dir)
    cd "$dir" || exit 1
    untraced_mpirun 2 "$APP" "$mode" 1 $ITERS > plain.out 2> /dev/null
    want=$?
    traced_mpirun 2 "$APP" "$mode" 1 $ITERS > out 2> err
    rc=$?
    if [ "$rc" != "$want" ]; then
        # mpirun's status after an abort depends on which rank it sees end first
        # (the abort's code or the other rank's signal): a second untraced run
        untraced_mpirun 2 "$APP" "$mode" 1 $ITERS > /dev/null 2>&1
        again=$?
        [ "$rc" = "$again" ] && want="$want or $again" && rc_ok=0 || rc_ok=1
    else
        rc_ok=0
    fi
    ok $rc_ok "$name: exit status of the untraced run kept ($rc, untraced $want)"
    check "$name: stdout unchanged" cmp plain.out out
    trace=$(ls -d hcatrace-fault_app-*)
    ls "$trace"/rank-0.partial "$trace"/rank-1.partial > /dev/null 2>&1
    ok $? "$name: both ranks wrote their partial definitions"
    grep -q "^hcatrace: rank 1 ended by $how1; the job's partial trace is in $trace" err
    ok $? "$name: rank 1 says how it ended and where its trace is"
    "$FOLD" -q "$trace" > fold.out 2> fold.err
    frc=$?
    ok $frc "$name: hcafold rebuilds and folds the partial trace (exit $frc)"
    [ $frc -eq 0 ] || sed 's/^/#   /' fold.err
    grep -q "^hcafold: $trace: the job ended without MPI_Finalize; its trace was rebuilt from what each rank wrote: rank 0: .*, trace up to [0-9.]* s; rank 1: $how1, trace up to [0-9.]* s$" fold.err
    ok $? "$name: hcafold says per rank how it ended and up to when"
    check "$name: otf2-print reads the rebuilt trace" valid_otf2 "$trace/traces.otf2"
    "$FOLD" -q -f json "$trace" > /dev/null 2> fold2.err
    grep -q "is a partial trace (the job ended without MPI_Finalize): rank 0: " fold2.err
    ok $? "$name: a later fold says the loss again"
    cd / && rm -rf "$dir"
}

fault_case "MPI_Abort in one rank" abort MPI_Abort
fault_case "segfault in one rank" segv SIGSEGV
fault_case "exit without MPI_Finalize" exit "exit without MPI_Finalize"

# SIGTERM to mpirun (a batch system's wall-time limit) while the ranks wait
dir=$(fresh_dir)
cd "$dir" || exit 1
term_after 4 plain.out /dev/null "$MPIRUN" $MPIRUN_FLAGS -np 2 "$APP" hang 0 $ITERS
want=$?
term_after 4 out err env LD_PRELOAD="$PRELOAD" "$MPIRUN" $MPIRUN_FLAGS -np 2 "$APP" hang 0 $ITERS
rc=$?
ok $((rc != want)) "SIGTERM to mpirun: exit status of the untraced run kept ($rc, untraced $want)"
trace=$(ls -d hcatrace-fault_app-*)
ls "$trace"/rank-0.partial "$trace"/rank-1.partial > /dev/null 2>&1
ok $? "SIGTERM to mpirun: both ranks wrote their partial definitions"
"$FOLD" -q "$trace" > fold.out 2> fold.err
frc=$?
ok $frc "SIGTERM to mpirun: hcafold rebuilds and folds the partial trace (exit $frc)"
[ $frc -eq 0 ] || sed 's/^/#   /' fold.err
grep -q "rank 0: SIGTERM, trace up to [0-9.]* s; rank 1: SIGTERM, trace up to" fold.err
ok $? "SIGTERM to mpirun: both ranks ended by SIGTERM, said"
check "SIGTERM to mpirun: otf2-print reads the rebuilt trace" valid_otf2 "$trace/traces.otf2"
cd / && rm -rf "$dir"

# a serial program killed by SIGTERM: its trace is finished as at a normal end
dir=$(fresh_dir)
cd "$dir" || exit 1
term_after 1 /dev/null /dev/null "$BUILD/tests/markers_app" 100000000
want=$?
term_after 2 out err env LD_PRELOAD="$PRELOAD" "$BUILD/tests/markers_app" 100000000
rc=$?
ok $((rc != want)) "serial, SIGTERM: exit status of the untraced run kept ($rc, untraced $want)"
grep -q "^hcatrace: the program ended by SIGTERM; its trace in hcatrace-markers_app-.* holds what it did until then$" err
ok $? "serial, SIGTERM: says where the trace is"
check "serial, SIGTERM: otf2-print reads the trace" valid_otf2 "$(the_trace)"
"$TRACESTAT" "$(the_trace)" > stat.txt 2>&1
grep -q "program_end 1" stat.txt
ok $? "serial, SIGTERM: the trace ends with the program's end"
cd / && rm -rf "$dir"

# MPI_ABORT from Fortran (use mpi): the Fortran binding is wrapped too
if command -v mpifort > /dev/null 2>&1; then
    dir=$(fresh_dir)
    cd "$dir" || exit 1
    cat > fabort.f90 <<'F90'
program fabort
  use mpi
  implicit none
  integer :: ierr, rank, it
  double precision :: x, s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  x = 0
  do it = 1, 60
    x = x + sqrt(dble(it))
    call MPI_Allreduce(x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (it == 30 .and. rank == 1) call MPI_Abort(MPI_COMM_WORLD, 4, ierr)
  end do
  call MPI_Finalize(ierr)
end program fabort
F90
    mpifort -o fabort fabort.f90
    plain_mpirun 2 ./fabort > /dev/null 2>&1
    want=$?
    traced_mpirun 2 ./fabort > out 2> err
    rc=$?
    rc_ok=$((rc != want))
    if [ "$rc" != "$want" ]; then # the abort's code or the other rank's signal: a second untraced run
        plain_mpirun 2 ./fabort > /dev/null 2>&1
        again=$?
        [ "$rc" = "$again" ] && want="$want or $again" && rc_ok=0
    fi
    ok $rc_ok "Fortran MPI_ABORT: exit status of the untraced run kept ($rc, untraced $want)"
    grep -q "^hcatrace: rank 1 ended by MPI_Abort; " err
    ok $? "Fortran MPI_ABORT: rank 1 wrote its partial trace"
    "$FOLD" --recover hcatrace-fabort-* 2> fold.err
    ok $? "Fortran MPI_ABORT: the trace is rebuilt"
    check "Fortran MPI_ABORT: otf2-print reads it" valid_otf2 hcatrace-fabort-*/traces.otf2
    cd / && rm -rf "$dir"
fi

# streaming: with HCATRACE_TOTAL_MEMORY=2 (MiB) the event buffers reach the disk during
# the run, so even SIGKILL, which no tracer can act on, leaves the events flushed before
# (every instance written: HCATRACE_THIN=off)
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_THIN=off HCATRACE_TOTAL_MEMORY=2 LD_PRELOAD="$PRELOAD" "$BUILD/tests/markers_app" 100000000 > /dev/null 2> err &
pid=$!
sleep 8
kill -KILL $pid
wait $pid
evt=$(stat -c %s hcatrace-markers_app-*/traces/0.evt 2>/dev/null || echo 0)
ok $((evt < 2097152)) "SIGKILL with HCATRACE_TOTAL_MEMORY=2: events flushed during the run are on disk ($evt bytes)"
cd / && rm -rf "$dir"

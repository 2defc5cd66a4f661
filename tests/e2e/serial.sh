# serial.sh: a program that never calls MPI_Init is traced from start to exit as
# one process, alone or launched by mpirun, with its output and exit code kept.
. "$(dirname "$0")/lib.sh"

dir=$(fresh_dir)
cd "$dir" || exit 1
"$EX/omp_free_serial" 5 > plain.out 2> plain.err
plain_rc=$?
LD_PRELOAD="$PRELOAD" "$EX/omp_free_serial" 5 > traced.out 2> traced.err
traced_rc=$?
ok $((plain_rc != 5 || traced_rc != 5)) "serial: exit code 5 kept ($plain_rc, $traced_rc)"
check "serial: stdout identical" cmp plain.out traced.out
ok "$(other_stderr traced.err | grep -c .)" "serial: nothing on stderr (but the no-PMU line)"
trace=$(the_trace)
ok $? "serial: one experiment directory"
check "serial: otf2-print --silent -Werror accepts the trace" valid_otf2 "$trace"
"$TRACESTAT" "$trace" > stat.txt
ok $? "serial: the trace reads back"
grep -q '^location 0 rank 0 .* mpi_calls 0 balanced yes monotonic yes .*program_begin 1 program_end 1$' stat.txt
ok $? "serial: one location with ProgramBegin and ProgramEnd, no MPI calls"
ok $(($(grep -c '^location ' stat.txt) != 1)) "serial: exactly one location"
cd / && rm -rf "$dir"

# launched by mpirun but never calling MPI_Init: one trace per process
dir=$(fresh_dir)
cd "$dir" || exit 1
traced_mpirun 2 "$EX/omp_free_serial" 0 > traced.out 2> traced.err
ok $? "mpirun of a non-MPI program: exit code 0"
ok $(($(grep -c 'serial: result' traced.out) != 2)) "mpirun of a non-MPI program: both outputs present"
ok $(($(ls -d hcatrace-omp_free_serial-* | wc -l) != 2)) "mpirun of a non-MPI program: one directory per process"
bad=0
for t in hcatrace-omp_free_serial-*/traces.otf2; do valid_otf2 "$t" || bad=1; done
ok $bad "mpirun of a non-MPI program: both traces valid"
cd / && rm -rf "$dir"

# user markers: regions of their own, nested, keyed by where they begin
dir=$(fresh_dir)
cd "$dir" || exit 1
"$BUILD/tests/markers_app" 17 > plain.out
LD_PRELOAD="$PRELOAD" "$BUILD/tests/markers_app" 17 > traced.out
ok $? "markers: exit code 0"
check "markers: stdout identical" cmp plain.out traced.out
trace=$(the_trace)
check "markers: valid trace" valid_otf2 "$trace"
"$TRACESTAT" "$trace" > stat.txt
grep -q '^location 0 .* balanced yes ' stat.txt
ok $? "markers: nested regions balanced (the stray END ignored)"
grep -q "^callsite iteration main [^ ]*markers_app.c:$(grep -n 'HCATRACE_BEGIN("iteration")' "$TOP/tests/markers_app.c" | cut -d: -f1) 17$" stat.txt
ok $? "markers: 17 instances of 'iteration', keyed by the line of its begin marker"
ok $(($(awk '$1 == "callsite" && $2 == "solve" { print $5 }' stat.txt) != 17)) "markers: 17 instances of 'solve'"
cd / && rm -rf "$dir"

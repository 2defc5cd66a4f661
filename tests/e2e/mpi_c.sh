# mpi_c.sh: end-to-end test of the MPI tracer on the C example with 1, 2 and 4
# ranks: valid OTF2, one location per rank, every MPI call counted by the
# program found in the trace, regions balanced, timestamps monotonic, call sites
# resolved to the example's functions and lines, output and exit code unchanged,
# mpirun itself untraced.
. "$(dirname "$0")/lib.sh"
SRC="$TOP/examples/mpi_phases.c"
ITER=23

for np in 1 2 4; do
    dir=$(fresh_dir)
    cd "$dir" || exit 1
    plain_mpirun "$np" "$EX/mpi_phases" -q -n $ITER -s 20000 > plain.out 2> plain.err
    plain_rc=$?
    traced_mpirun "$np" "$EX/mpi_phases" -q -n $ITER -s 20000 > traced.out 2> traced.err
    traced_rc=$?
    ok $((plain_rc != 0 || traced_rc != 0)) "np=$np: both runs succeed ($plain_rc, $traced_rc)"
    check "np=$np: stdout identical with and without the tracer" cmp plain.out traced.out
    ok "$(other_stderr traced.err | grep -c .)" "np=$np: nothing on stderr (but the no-PMU line)"
    trace=$(the_trace)
    ok $? "np=$np: exactly one experiment directory, named after the program"
    case "$trace" in hcatrace-mpi_phases-[0-9]*-[0-9]*/traces.otf2) r=0 ;; *) r=1 ;; esac
    ok $r "np=$np: directory name hcatrace-<exe>-<YYYYmmdd-HHMMSS> ($trace)"
    check "np=$np: otf2-print --silent -Werror accepts the trace" valid_otf2 "$trace"
    "$TRACESTAT" "$trace" > stat.txt
    ok $? "np=$np: the trace reads back"
    ok $(($(grep -c '^location ' stat.txt) != np)) "np=$np: one location per rank"
    # per rank: the program's own count equals the MPI regions in the trace
    bad=0
    for r in $(seq 0 $((np - 1))); do
        want=$(sed -n "s/^mpi_phases: rank $r calls \([0-9]*\) .*/\1/p" traced.out)
        got=$(awk -v r="$r" '$1 == "location" && $4 == r { print $8 }' stat.txt)
        [ -n "$want" ] && [ "$want" = "$got" ] || { bad=1; echo "# rank $r: program counted '$want', trace has '$got'"; }
    done
    ok $bad "np=$np: MPI calls per rank in the trace = calls counted by the program"
    ok "$(grep '^location ' stat.txt | grep -vc 'balanced yes monotonic yes')" \
        "np=$np: regions balanced and timestamps non-decreasing on every location"
    ok "$(grep '^location ' stat.txt | grep -vc 'program_begin 1 program_end 1')" \
        "np=$np: one ProgramBegin and one ProgramEnd per process"
    for m in allreduce_residual:MPI_Allreduce:reduce_residual allreduce_convergence:MPI_Allreduce:check_convergence \
             waitall_halo:MPI_Waitall:exchange_halo bcast_params:MPI_Bcast:broadcast_params; do
        name=${m%%:*}; rest=${m#*:}; region=${rest%%:*}; fn=${rest#*:}
        line=$(marker_line "$SRC" "$name")
        grep -q "^callsite $region $fn [^ ]*mpi_phases.c:$line " stat.txt
        ok $? "np=$np: $region called from $fn at mpi_phases.c:$line is its own call site"
    done
    want=$((np * ITER))
    got=$(awk '$1 == "callsite" && $2 == "MPI_Allreduce" && $3 == "reduce_residual" { print $5 }' stat.txt)
    ok $((got != want)) "np=$np: the residual Allreduce occurs $want times ($got)"
    grep -q '^comm MPI_COMM_WORLD size '"$np"'$' stat.txt
    ok $? "np=$np: MPI_COMM_WORLD defined with $np ranks"
    ok $(($(grep -c '^comm MPI_Comm_split' stat.txt) != (np == 1 ? 1 : 2))) \
        "np=$np: the even/odd split communicators are defined"
    isend=$(awk '$2 == "isend" { print $3 }' stat.txt)
    done_=$(awk '$2 == "isend_complete" { print $3 }' stat.txt)
    irecv=$(awk '$2 == "irecv" { print $3 }' stat.txt)
    ok $((isend != 2 * np * ITER || done_ != isend || irecv != isend)) \
        "np=$np: every Isend completes and every Irecv is matched ($isend/$done_/$irecv)"
    stray=$(ls -d hcatrace-* | grep -vc '^hcatrace-mpi_phases-')
    ok "$stray" "np=$np: mpirun left no trace of its own"
    cd / && rm -rf "$dir"
done

# exit code of the application is kept
dir=$(fresh_dir)
cd "$dir" || exit 1
plain_mpirun 2 "$EX/mpi_phases" -q -n 3 -s 1000 -e 3 > /dev/null 2>&1
plain_rc=$?
traced_mpirun 2 "$EX/mpi_phases" -q -n 3 -s 1000 -e 3 > /dev/null 2>&1
traced_rc=$?
ok $((plain_rc != 3 || traced_rc != 3)) "exit code 3 kept by the tracer ($plain_rc, $traced_rc)"
trace=$(the_trace)
check "trace of the run with exit code 3 is valid" valid_otf2 "$trace"

# two jobs started in the same second get different directories
traced_mpirun 1 "$EX/mpi_phases" -q -n 1 -s 1000 > /dev/null 2>&1 &
traced_mpirun 1 "$EX/mpi_phases" -q -n 1 -s 1000 > /dev/null 2>&1
wait
ok $(($(ls -d hcatrace-mpi_phases-* | wc -l) != 3)) "concurrent jobs never share an experiment directory"
cd / && rm -rf "$dir"

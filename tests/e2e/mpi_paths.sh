# mpi_paths.sh: the call paths of MPI calls taken from the thread's path
# cache (instrument/hct_mpi_path.c) are those an unwind gives, every time.
# tests/mpi_path_app calls MPI_Allreduce and MPI_Barrier from reduce_step, a
# frame addressed through its frame pointer (a variable-length array),
# called in turn from phase_a and phase_b (the wrappers' frames at the same
# stack address from both: one site, one anchor, reduce_step's frame
# elsewhere) and from phase_c through phase_a, all from one call instruction
# in main; the program counts the steps through each. Each path's events in
# the trace must be exactly those counts, on 2 ranks. A cache taking
# reduce_step's frame for one of fixed size gives phase_a's path to phase_b's
# calls (checked: with its rbp check removed, phase_a 800 and phase_b 0 of 400 each).
. "$(dirname "$0")/lib.sh"
MPA="$BUILD/tests/mpi_path_app"
[ -x "$TOP/build/tests/mpi_path_app" ] && MPA="$TOP/build/tests/mpi_path_app" # never sanitized
ITER=600
NP=2

dir=$(fresh_dir)
cd "$dir" || exit 1
plain_and_traced $NP "mpi paths" "$MPA" $ITER
sort plain.out > plain.sorted
sort traced.out > traced.sorted
check "mpi paths: stdout identical with and without the tracer" cmp plain.sorted traced.sorted
trace=$(the_trace)
ok $? "mpi paths: one experiment directory"
"$TRACESTAT" "$trace" > stat.txt
ok $? "mpi paths: the trace reads back"
# the steps through each phase, summed over the ranks (the program's count)
steps() { awk -v k="$1" '$1 == "mpi_path_app:" { for (i = 2; i < NF; i++) if ($i == k) n += $(i + 1) } END { print n + 0 }' plain.out; }
# enters of REGION in the context REGION < reduce_step < CALLER < OUTER
events() {
    awk -v r="$1@" -v c="$2@" -v o="$3@" '$1 == "context" && index($3, r) == 1 && index($5, "reduce_step@") == 1 &&
        index($7, c) == 1 && index($9, o) == 1 { n += $2 } END { print n + 0 }' stat.txt
}
for region in MPI_Allreduce MPI_Barrier; do
    a=$(events $region phase_a main)
    b=$(events $region phase_b main)
    c=$(events $region phase_a phase_c)
    all=$(awk -v r="$region@" '$1 == "context" && index($3, r) == 1 { n += $2 } END { print n + 0 }' stat.txt)
    want_a=$(steps a)
    want_b=$(steps b)
    want_c=$(steps c)
    ok $((want_a == 0 || a != want_a || b != want_b || c != want_c || all != want_a + want_b + want_c)) \
        "mpi paths: $region's contexts as the program's steps: via phase_a $a ($want_a), phase_b $b ($want_b), phase_c $c ($want_c), all $all"
done
check "mpi paths: otf2-print --silent -Werror accepts the trace" valid_otf2 "$trace"
cd / && rm -rf "$dir"

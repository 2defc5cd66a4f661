# quiet_end.sh: the ranks that reach the tracer's end first wait for the last
# one asleep (instrument/hct_mpi_quiet.c). tests/late_rank_app: 4 ranks, the
# last one away (asleep, taking no CPU) for DELAY s before MPI_Finalize; each
# rank prints the CPU time (all its threads) and the wall time of its
# MPI_Finalize. The three waiting ranks must have spent under 5 % of
# their wait on a CPU. Polling (main before branch quietend: PMPI_Recv in
# the clock-offset exchange, Open MPI yielding when oversubscribed) took
# 10-13 % of the wait at load 26 (more on a quieter machine); asleep 1-2 %.
# The trace stays whole: valid, two clock offsets per location, the
# program's output that of the untraced run.
. "$(dirname "$0")/lib.sh"
APP="$BUILD/tests/late_rank_app"
[ -x "$APP" ] || APP="$TOP/build/tests/late_rank_app"
NP=4
DELAY=3

dir=$(fresh_dir)
cd "$dir" || exit 1
plain_and_traced $NP "quiet end" "$APP" $DELAY
# the program's output without its measurements
shape() { sed 's/cpu_ms [0-9.]* wall_ms [0-9.]*/cpu_ms - wall_ms -/' "$1" | sort; }
shape plain.out > plain.shape
shape traced.out > traced.shape
check "quiet end: stdout as untraced (but the times)" cmp plain.shape traced.shape
for r in 0 1 2; do
    line=$(grep "^late_rank_app: rank $r " traced.out)
    cpu=$(echo "$line" | awk '{ print $6 }')
    wall=$(echo "$line" | awk '{ print $8 }')
    # waited at least half the delay (else nothing was measured), a twentieth of it on a CPU at most
    verdict=$(awk -v c="${cpu:-0}" -v w="${wall:-0}" -v d=$DELAY 'BEGIN { print (w >= d * 500 && c * 20 < w) ? 0 : 1 }')
    ok "$verdict" "quiet end: rank $r waited ${wall:-?} ms for the last rank, ${cpu:-?} ms of it on a CPU (< 1/20)"
done
trace=$(the_trace)
ok $? "quiet end: one experiment directory"
check "quiet end: otf2-print --silent -Werror accepts the trace" valid_otf2 "$trace"
noff=$(otf2-print -C "$trace" 2>/dev/null | grep -c '^CLOCK_OFFSET')
ok $((noff != 2 * NP)) "quiet end: two clock offsets per location ($noff for $NP)"
cd / && rm -rf "$dir"

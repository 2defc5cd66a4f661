#!/bin/sh
# bench/counters.sh: what the counter values cost at one region boundary, with
# N counters in the set (docs/benchmarks.md, "Sampling and counters"). Runs
# build/bench/mpi_call_cost's iprobe_proc_null kind (an MPI_Iprobe that costs
# a few ns in MPI; the tracer writes its enter and leave) with 1 rank and
# LD_PRELOAD=build/lib/libhcatrace.so, sampling off, in ROUNDS alternating
# rounds, with HCATRACE_COUNTERS off and with sets of 1, 2, 3, 4 and 6
# software events (what this machine has; one read() of the group per
# boundary, whatever N). Prints per N the median ns per call and the cost per
# boundary, (ns(N) - ns(off)) / 2. Builds nothing: run `make` first.
# Environment: ROUNDS (5), CALLS per batch (20000), BATCHES (7), MPIRUN. ~1 minute.
set -eu
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIN=$ROOT/build/bench/mpi_call_cost
LIB=$ROOT/build/lib/libhcatrace.so
ROUNDS=${ROUNDS:-5}
CALLS=${CALLS:-20000}
BATCHES=${BATCHES:-7}
MPIRUN=${MPIRUN:-mpirun}
MPIFLAGS="--oversubscribe"
[ "$(id -u)" = 0 ] && MPIFLAGS="$MPIFLAGS --allow-run-as-root"
for f in "$BIN" "$LIB"; do
    [ -e "$f" ] || { echo "bench/counters.sh: $f is missing; run make first" >&2; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hcatrace-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cd "$TMP"

EVENTS="task-clock page-faults context-switches cpu-migrations minor-faults major-faults"
set_of() { # the first N events, comma-separated
    echo "$EVENTS" | tr ' ' '\n' | head -n "$1" | paste -sd, -
}
CONFIGS="off 1 2 3 4 6"

run() { # config round
    c=off
    [ "$1" = off ] || c=$(set_of "$1")
    # shellcheck disable=SC2086
    "$MPIRUN" $MPIFLAGS -np 1 -x LD_PRELOAD="$LIB" -x HCATRACE_DIR="$TMP/t.$1.$2" -x HCATRACE_SAMPLING=off \
        -x HCATRACE_COUNTERS="$c" "$BIN" "$CALLS" "$BATCHES" iprobe_proc_null > "$TMP/n$1.$2" 2>/dev/null
    rm -rf "$TMP/t.$1.$2"
    grep -q '^call=' "$TMP/n$1.$2" || { echo "bench/counters.sh: no result for $1" >&2; exit 1; }
}

i=1
while [ "$i" -le "$ROUNDS" ]; do
    printf 'round %s/%s\r' "$i" "$ROUNDS" >&2
    order=$CONFIGS
    [ $((i % 2)) = 0 ] && order=$(echo "$CONFIGS" | tr ' ' '\n' | tac | paste -sd' ' -)
    for c in $order; do run "$c" "$i"; done
    i=$((i + 1))
done
printf '%20s\r' '' >&2

echo "hcatrace cost of the counter values at a region boundary (bench/counters.sh)"
echo "date:    $(date '+%Y-%m-%d %H:%M %Z')"
echo "machine: $(bench_machine)"
echo "runs:    $ROUNDS rounds x (counters off, 1, 2, 3, 4, 6 events), MPI_Iprobe(MPI_PROC_NULL), 1 rank, sampling off"
echo "events:  $EVENTS (in this order)"
echo
awk "$AWK_MEDIAN"'
FNR == 1 { split(FILENAME, p, "/"); cfg = substr(p[length(p)], 2); sub(/\.[0-9]+$/, "", cfg) }
/^call=iprobe_proc_null/ { for (f = 1; f <= NF; f++) { split($f, kv, "="); if (kv[1] == "ns_per_call") v[cfg] = v[cfg] " " kv[2] } }
END {
    off = median(v["off"])
    printf "%-10s %12s %20s\n", "counters", "ns per call", "ns per boundary"
    printf "%-10s %12.1f %20s\n", "off", off, "-"
    split("1 2 3 4 6", ns, " ")
    for (k = 1; k <= 5; k++) { m = median(v[ns[k]]); printf "%-10s %12.1f %20.1f\n", ns[k], m, (m - off) / 2 }
}' "$TMP"/n*

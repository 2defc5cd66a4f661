#!/bin/sh
# bench/thin_counters.sh: what the counter reads of kept-back instances cost
# (docs/benchmarks.md, "Counter values of thinned instances"): CPU time
# (user + system, rusage: measure in lib.sh) of programs whose regions are mostly kept back,
# untraced, traced with the library BEFORE (e.g. main's) and with this
# build's, in rotating order; prints per program and configuration the
# median (min-max) over the rounds and the ratio to untraced.
#   ROUNDS (7)   BEFORE (a libhcatrace.so to compare with; required)
# Programs: build/bench/omp_region_cost 200000 5 (1 thread: every region a
# kept-back share), build/tests/thin_app 20000 1000 (2 threads: critical
# sections and user regions), build/tests/thin_counters_app 100000 5 (5 us
# user regions). Builds nothing: run `make` first.
set -eu
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
cd "$(dirname "$0")/.."
ROOT=$(pwd)
LIB=$ROOT/build/lib/libhcatrace.so
ROUNDS=${ROUNDS:-7}
BEFORE=${BEFORE:?set BEFORE to the library to compare with}
for f in "$LIB" "$BEFORE" "$ROOT/build/bench/omp_region_cost" "$ROOT/build/tests/thin_counters_app"; do
    [ -e "$f" ] || { echo "bench/thin_counters.sh: $f is missing" >&2; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hcatrace-thincount.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
echo "# $(bench_machine); $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # config program args...: one run, its CPU seconds appended to $TMP/<program>.<config>
    cfg=$1 prog=$2
    shift 2
    case $cfg in
    untraced) pre= ;;
    before) pre=$BEFORE ;;
    *) pre=$LIB ;;
    esac
    rm -rf "$TMP/trace" "$TMP/t"
    measure "$TMP/t" env LD_PRELOAD="$pre" HCATRACE_DIR="$TMP/trace" "$prog" "$@" # the program alone traced
    awk '{ printf "%s ", $1 }' "$TMP/t" >> "$TMP/$(basename "$prog").$cfg"
}
r=0
while [ $r -lt "$ROUNDS" ]; do
    case $((r % 3)) in 0) order="untraced before this" ;; 1) order="before this untraced" ;; *) order="this untraced before" ;; esac
    for cfg in $order; do
        OMP_NUM_THREADS=1 run $cfg "$ROOT/build/bench/omp_region_cost" 200000 5
        OMP_NUM_THREADS=2 run $cfg "$ROOT/build/tests/thin_app" 20000 1000
        run $cfg "$ROOT/build/tests/thin_counters_app" 100000 5
    done
    r=$((r + 1))
done
for p in omp_region_cost thin_app thin_counters_app; do
    base=$(awk "$AWK_MEDIAN"' { print median($0) }' "$TMP/$p.untraced")
    for cfg in untraced before this; do
        awk -v p="$p" -v c="$cfg" -v b="$base" "$AWK_MEDIAN"'
            { n = split($0, a, " "); lo = hi = a[1]; for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
              m = median($0); printf "%-18s %-9s CPU %.3f s (%.3f-%.3f) ratio %.3f\n", p, c, m, lo, hi, (b > 0 ? m / b : 0) }' "$TMP/$p.$cfg"
    done
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"

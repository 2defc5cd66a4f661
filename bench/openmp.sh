#!/bin/sh
# bench/openmp.sh: the tracer's added cost per OpenMP parallel region per thread
# (goal: <= 1 us beyond the runtime's own fork/join, docs/benchmarks.md). Runs
# build/bench/omp_region_cost (nearly empty parallel regions) with 2 threads
# without the tracer, with it at the default settings (HCATRACE_THIN: after
# the first 1000 instances such regions are only counted), with every
# instance written in full (HCATRACE_THIN=off), and written in full with
# counters and sampling off, in alternating rounds in a temporary directory that is removed
# afterwards; prints the medians over the rounds of ns per region and the
# added ns per region per thread. Builds nothing: run `make` first.
# Environment: ROUNDS (5), REGIONS per batch (20000), THREADS (2), RUNTIME
# (libgomp, or libomp: every run preloads LIBOMP, libomp.so.5 from config.mk,
# after the tracer; the tracer then records through OMPT).
set -eu
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIN=$ROOT/build/bench/omp_region_cost
LIB=$ROOT/build/lib/libhcatrace.so
ROUNDS=${ROUNDS:-5}
REGIONS=${REGIONS:-20000}
THREADS=${THREADS:-2}
RUNTIME=${RUNTIME:-libgomp}
OMP=
if [ "$RUNTIME" = libomp ]; then
    OMP=${LIBOMP:-$(sed -n 's/^LIBOMP = //p' config.mk 2>/dev/null)}
    [ -n "$OMP" ] && [ -e "$OMP" ] || { echo "bench/openmp.sh: libomp.so.5 not found: set LIBOMP" >&2; exit 1; }
fi
for f in "$BIN" "$LIB"; do
    [ -e "$f" ] || { echo "bench/openmp.sh: $f is missing; build first: make" >&2; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hcabench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
cd "$TMP"

run() { # config
    case $1 in
    plain) OMP_NUM_THREADS=$THREADS LD_PRELOAD="$OMP" "$BIN" "$REGIONS" ;;
    traced) OMP_NUM_THREADS=$THREADS HCATRACE_DIR="$TMP/t" LD_PRELOAD="$LIB $OMP" "$BIN" "$REGIONS" 2>/dev/null ;;
    full) OMP_NUM_THREADS=$THREADS HCATRACE_THIN=off HCATRACE_DIR="$TMP/t" LD_PRELOAD="$LIB $OMP" "$BIN" "$REGIONS" 2>/dev/null ;;
    bare) OMP_NUM_THREADS=$THREADS HCATRACE_THIN=off HCATRACE_COUNTERS=off HCATRACE_SAMPLING=off HCATRACE_DIR="$TMP/t" \
        LD_PRELOAD="$LIB $OMP" "$BIN" "$REGIONS" ;;
    esac | awk -v c="$1" '{ print c, $4 }' >> "$TMP/results"
    rm -rf "$TMP/t"
}

i=1
while [ "$i" -le "$ROUNDS" ]; do
    if [ $((i % 2)) = 1 ]; then run plain; run traced; run full; run bare; else run bare; run full; run traced; run plain; fi
    i=$((i + 1))
done

echo "hcatrace cost per OpenMP parallel region per thread (bench/openmp.sh)"
echo "date:    $(date '+%Y-%m-%d %H:%M %Z')"
echo "machine: $(bench_machine)"
echo "runs:    $ROUNDS rounds x (plain, traced, full, bare), $REGIONS regions per batch, $THREADS threads, $RUNTIME"
echo
awk -v nt="$THREADS" -v rt="$RUNTIME" "$AWK_MEDIAN"'
{ v[$1] = v[$1] " " $2 }
END {
    p = median(v["plain"])
    printf "%-40s %10s %22s\n", "config", "ns/region", "added ns/region/thread"
    printf "%-40s %10.0f %22s\n", "untraced (" rt " fork/join)", p, "-"
    t = median(v["traced"]); f = median(v["full"]); b = median(v["bare"])
    printf "%-40s %10.0f %22.0f\n", "traced, defaults (thinned after 1000)", t, (t - p) / nt
    printf "%-40s %10.0f %22.0f\n", "traced, every region (HCATRACE_THIN=off)", f, (f - p) / nt
    printf "%-40s %10.0f %22.0f\n", "the same, counters and sampling off", b, (b - p) / nt
}' "$TMP/results"

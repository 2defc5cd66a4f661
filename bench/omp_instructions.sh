#!/bin/sh
# bench/omp_instructions.sh: the tracer's instructions per kept-back OpenMP
# parallel region, per thread (docs/benchmarks.md, "One rank, two threads").
# Counts with callgrind (deterministic, load-independent) the instructions of
# build/bench/omp_region_cost with FEW and MANY regions, untraced and traced
# (OMP_WAIT_POLICY=passive: no spinning counted; HCATRACE_SAMPLING=10s: no
# samples), each thread on its own (--separate-threads), and prints per
# thread (master, then the workers in their order) the difference divided by
# MANY - FEW, less the tracer's start and end (hct_load, hct_unload: the
# start's clock calibration is timed, its instructions vary): the first
# instances written in full are in both runs and cancel. Then the tracer's
# parallel-region entry points on each thread, inclusive. Needs valgrind
# (not installed by scripts/install-deps); builds nothing: run `make` first.
# Environment: THREADS (2), FEW (2000), MANY (6000).
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIN=$ROOT/build/bench/omp_region_cost
LIB=$ROOT/build/lib/libhcatrace.so
THREADS=${THREADS:-2}
FEW=${FEW:-2000}
MANY=${MANY:-6000}
for f in "$BIN" "$LIB"; do
    [ -e "$f" ] || { echo "bench/omp_instructions.sh: $f missing: run make" >&2; exit 1; }
done
if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
    echo "bench/omp_instructions.sh: needs valgrind (apt-get install valgrind)" >&2
    exit 1
fi
[ "$MANY" -gt "$FEW" ] || { echo "bench/omp_instructions.sh: MANY must exceed FEW" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# count CONFIG N: callgrind output files $TMP/CONFIG.N.out-NN, one per thread
count() { # CONFIG N
    cfg=$1
    n=$2
    if [ "$cfg" = traced ]; then
        LD_PRELOAD=$LIB HCATRACE_DIR=$TMP/trace.$n HCATRACE_SAMPLING=10s OMP_NUM_THREADS=$THREADS \
            OMP_WAIT_POLICY=passive valgrind --tool=callgrind --separate-threads=yes \
            --callgrind-out-file="$TMP/$cfg.$n.out" "$BIN" "$n" 1 >/dev/null 2>&1
    else
        OMP_NUM_THREADS=$THREADS OMP_WAIT_POLICY=passive valgrind --tool=callgrind --separate-threads=yes \
            --callgrind-out-file="$TMP/$cfg.$n.out" "$BIN" "$n" 1 >/dev/null 2>&1
    fi
}

# inclusive counts of one thread's file: "count<TAB>function"
functions() {
    callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$1" 2>/dev/null |
        sed '/Auto-annotated source/q' | grep -E '^ *[0-9,]+ +\(' | grep -v '=>' |
        sed -E 's/^ *([0-9,]+) +\( *[0-9.]+%\) +/\1\t/; s/ \[.*//; s/,//g'
}

# the OpenMP threads' files: those that ran the program's regions (the
# tracer's own helper threads never call the outlined function)
omp_threads() { # CONFIG N
    for f in "$TMP/$1.$2.out"-*; do
        if functions "$f" | grep -q 'main._omp_fn'; then
            echo "$f"
        fi
    done
}

for cfg in untraced traced; do
    for n in "$FEW" "$MANY"; do
        count "$cfg" "$n"
    done
done

echo "instructions per parallel region, $THREADS threads, ($MANY - $FEW regions)"
for cfg in untraced traced; do
    omp_threads "$cfg" "$FEW" > "$TMP/few.list"
    omp_threads "$cfg" "$MANY" > "$TMP/many.list"
    i=0
    paste "$TMP/few.list" "$TMP/many.list" | while read -r few many; do
        i=$((i + 1))
        functions "$few" > "$TMP/f"
        functions "$many" > "$TMP/m"
        awk -F'\t' -v d=$((MANY - FEW)) -v cfg="$cfg" -v th="$i" '
            NR == FNR { a[$2] = $1; next }
            $2 == "PROGRAM TOTALS" { total = $1 - a[$2] }
            $2 ~ /^\/.*\/instrument\/hct_core\.c:hct_(load|unload)$/ { fixed += $1 - a[$2] }
            cfg == "traced" && $2 ~ /^\/.*\/instrument\/hct_openmp[a-z_]*\.c:(hct_omp_fork_begin|hct_omp_fork_end|hct_omp_share_begin|hct_omp_share_end)$/ {
                parts = parts sprintf("  %-60s %.0f\n", $2, ($1 - a[$2]) / d) }
            END { printf "%s thread %d: %.0f\n%s", cfg, th, (total - fixed) / d, parts }' "$TMP/f" "$TMP/m"
    done
done

#!/bin/sh
# bench/overhead.sh: the whole-run overhead of the tracer at its default
# settings on the examples (docs/benchmarks.md; goal: at most 1 %). Runs, in
# ROUNDS alternating rounds, each example untraced, traced with the defaults
# (MPI calls, call sites, counters, sampling) and traced with counters and
# sampling off (the MPI tracer alone):
#   mpi_phases   2 ranks, ITER iterations of the default size: the time per
#                iteration it reports (its main loop), and the whole mpirun
#   omp_free_serial, mpi_ring (2 ranks): the whole run
# and prints, per measure, the minimum over the rounds (the run least disturbed
# by other work on the machine: on a shared 2-core VM a competing process
# halves the speed of 2 busy-polling ranks, which no median removes) and the
# median, with the overhead against the untraced runs. Whole runs include
# start-up and the writing of the trace at the end.
# Environment: ROUNDS (5), ITER (200), MPIRUN. Builds nothing: run `make` first.
set -eu
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
cd "$(dirname "$0")/.."
ROOT=$(pwd)
EX=$ROOT/build/examples
LIB=$ROOT/build/lib/libhcatrace.so
ROUNDS=${ROUNDS:-5}
ITER=${ITER:-200}
MPIRUN=${MPIRUN:-mpirun}
MPIFLAGS="--oversubscribe"
[ "$(id -u)" = 0 ] && MPIFLAGS="$MPIFLAGS --allow-run-as-root"
for f in "$EX/mpi_phases" "$EX/omp_free_serial" "$LIB"; do
    [ -e "$f" ] || { echo "bench/overhead.sh: $f is missing; run make first" >&2; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hcatrace-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cd "$TMP"

now_ms() { date +%s%N | awk '{ printf "%.1f", $1 / 1e6 }'; }

# run CONFIG ROUND: every example once in CONFIG (untraced, default, mpionly)
run() {
    case $1 in
    untraced) pre="" ;;
    default) pre="-x LD_PRELOAD=$LIB" ;;
    mpionly) pre="-x LD_PRELOAD=$LIB -x HCATRACE_COUNTERS=off -x HCATRACE_SAMPLING=off" ;;
    esac
    out=$TMP/$1.$2
    : > "$out"
    t0=$(now_ms)
    # shellcheck disable=SC2086
    "$MPIRUN" $MPIFLAGS -np 2 $pre -x HCATRACE_DIR="$TMP/t1" "$EX/mpi_phases" -n "$ITER" > /dev/null 2> "$TMP/err"
    t1=$(now_ms)
    sed -n 's/.* \([0-9.]*\) ms\/iteration.*/iteration \1/p' "$TMP/err" >> "$out"
    echo "mpi_phases $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" >> "$out"
    t0=$(now_ms)
    if [ "$1" = untraced ]; then
        "$EX/omp_free_serial" > /dev/null
    elif [ "$1" = default ]; then
        HCATRACE_DIR="$TMP/t2" LD_PRELOAD="$LIB" "$EX/omp_free_serial" > /dev/null 2>&1
    else
        HCATRACE_DIR="$TMP/t2" HCATRACE_COUNTERS=off HCATRACE_SAMPLING=off LD_PRELOAD="$LIB" "$EX/omp_free_serial" > /dev/null 2>&1
    fi
    t1=$(now_ms)
    echo "omp_free_serial $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" >> "$out"
    if [ -x "$EX/mpi_ring" ]; then
        t0=$(now_ms)
        # shellcheck disable=SC2086
        "$MPIRUN" $MPIFLAGS -np 2 $pre -x HCATRACE_DIR="$TMP/t3" "$EX/mpi_ring" 2000 > /dev/null 2>&1
        t1=$(now_ms)
        echo "mpi_ring $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" >> "$out"
    fi
    rm -rf "$TMP/t1" "$TMP/t2" "$TMP/t3"
}

i=1
while [ "$i" -le "$ROUNDS" ]; do
    printf 'round %s/%s\r' "$i" "$ROUNDS" >&2
    if [ $((i % 2)) = 1 ]; then run untraced "$i"; run default "$i"; run mpionly "$i"
    else run mpionly "$i"; run default "$i"; run untraced "$i"; fi
    i=$((i + 1))
done
printf '%20s\r' '' >&2

echo "hcatrace whole-run overhead at default settings (bench/overhead.sh)"
echo "date:    $(date '+%Y-%m-%d %H:%M %Z')"
echo "machine: $(bench_machine)"
echo "runs:    $ROUNDS rounds x (untraced, default, MPI tracer alone); mpi_phases -n $ITER, 2 ranks"
echo
awk "$AWK_MEDIAN"'
FNR == 1 { split(FILENAME, p, "/"); cfg = p[length(p)]; sub(/\.[0-9]+$/, "", cfg) }
{ if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } v[cfg, $1] = v[cfg, $1] " " $2 }
function minimum(list,    n, a, i, m) {
    n = split(list, a, " "); m = a[1] + 0
    for (i = 2; i <= n; i++) if (a[i] + 0 < m) m = a[i] + 0
    return m
}
function row(name, how, u, d, a) {
    printf "%-28s %-6s %10.2f %10.2f %8.2f%% %10.2f %8.2f%%\n", name, how, u, d, u ? 100 * (d - u) / u : 0, a,
        u ? 100 * (a - u) / u : 0
}
END {
    printf "%-28s %-6s %10s %10s %9s %10s %9s\n", "measure (ms)", "", "untraced", "default", "overhead", "MPI alone",
        "overhead"
    for (k = 1; k <= n; k++) {
        m = order[k]
        name = m == "iteration" ? "mpi_phases: one iteration" : m == "mpi_phases" ? "mpi_phases: whole mpirun" : m ": whole run"
        row(name, "min", minimum(v["untraced", m]), minimum(v["default", m]), minimum(v["mpionly", m]))
        row("", "median", median(v["untraced", m]), median(v["default", m]), median(v["mpionly", m]))
    }
}' "$TMP"/untraced.* "$TMP"/default.* "$TMP"/mpionly.*

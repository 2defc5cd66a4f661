#!/bin/sh
# bench/run.sh: measures the tracer's own cost per intercepted MPI call (the
# wrapper's time, without counters; the goal is <= 150 ns, docs/benchmarks.md).
# Runs build/bench/mpi_call_cost with 1 rank without the tracer, with
# LD_PRELOAD=build/lib/libhcatrace.so, and with the tracer and
# HCATRACE_CALLSITES=off, in several alternating rounds, in a temporary
# directory that is removed afterwards; prints per call kind the median over the
# rounds of the untraced and traced ns per call and their difference (= the
# wrapper's cost), the median difference across kinds, and the machine.
# Builds nothing: run `make` first. Usage, from anywhere: bench/run.sh
# Environment: ROUNDS (7), CALLS per batch (20000), BATCHES (11), NP ranks (1),
# MPIRUN (mpirun). Takes about 15-30 s with the defaults.
set -eu
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIN=$ROOT/build/bench/mpi_call_cost
LIB=$ROOT/build/lib/libhcatrace.so
ROUNDS=${ROUNDS:-7}
CALLS=${CALLS:-20000}
BATCHES=${BATCHES:-11}
NP=${NP:-1}
MPIRUN=${MPIRUN:-mpirun}
GOAL_NS=150

for f in "$BIN" "$LIB"; do
    if [ ! -e "$f" ]; then
        echo "bench/run.sh: $f is missing; build first: make (or make build/lib/libhcatrace.so build/bench/mpi_call_cost)" >&2
        exit 1
    fi
done
if ! command -v "$MPIRUN" >/dev/null 2>&1; then
    echo "bench/run.sh: $MPIRUN not found (set MPIRUN)" >&2
    exit 1
fi

MPIFLAGS="--oversubscribe"
if [ "$(id -u)" = 0 ]; then
    MPIFLAGS="$MPIFLAGS --allow-run-as-root"
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hcatrace-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cd "$TMP"

# run LABEL ROUND: one run of the benchmark, its output in $TMP/LABEL.ROUND
run() {
    out=$TMP/$1.$2
    case $1 in
    untraced)
        # shellcheck disable=SC2086
        "$MPIRUN" $MPIFLAGS -np "$NP" "$BIN" "$CALLS" "$BATCHES" >"$out"
        ;;
    traced | nocallsites)
        cs=on
        [ "$1" = nocallsites ] && cs=off
        trace=$TMP/trace.$1.$2
        # the wrapper alone: counters and sampling (on by default) are measured
        # by bench/counters.sh and bench/sampling.sh
        # shellcheck disable=SC2086
        "$MPIRUN" $MPIFLAGS -np "$NP" -x LD_PRELOAD="$LIB" -x HCATRACE_DIR="$trace" -x HCATRACE_CALLSITES=$cs \
            -x HCATRACE_COUNTERS=off -x HCATRACE_SAMPLING=off "$BIN" "$CALLS" "$BATCHES" >"$out"
        if [ ! -e "$trace/traces.otf2" ]; then
            echo "bench/run.sh: the traced run wrote no trace in $trace: the tracer did not run" >&2
            exit 1
        fi
        rm -rf "$trace" # a few tens of MB each
        ;;
    esac
    if ! grep -q '^call=' "$out"; then
        echo "bench/run.sh: no results from the $1 run (round $2)" >&2
        exit 1
    fi
}

i=1
while [ "$i" -le "$ROUNDS" ]; do
    printf 'round %s/%s\r' "$i" "$ROUNDS" >&2
    # alternate the order, so that a drift of the machine hits all configurations alike
    if [ $((i % 2)) = 1 ]; then
        run untraced "$i"; run traced "$i"; run nocallsites "$i"
    else
        run nocallsites "$i"; run traced "$i"; run untraced "$i"
    fi
    i=$((i + 1))
done
printf '%20s\r' '' >&2

mpiver=$("$MPIRUN" --version 2>/dev/null | head -n 1 || true)
echo "hcatrace cost per intercepted MPI call (bench/run.sh)"
echo "date:    $(date '+%Y-%m-%d %H:%M %Z')"
echo "machine: $(bench_machine); ${mpiver:-MPI unknown}"
echo "runs:    $ROUNDS rounds x (untraced, traced, traced with HCATRACE_CALLSITES=off), $NP rank(s),"
echo "         each the median of $BATCHES batches of $CALLS repetitions; medians over the rounds below"
echo

# One awk program over all results: medians over the rounds, per kind and configuration.
awk -v goal="$GOAL_NS" "$AWK_MEDIAN"'
FNR == 1 { split(FILENAME, p, "/"); cfg = p[length(p)]; sub(/\.[0-9]+$/, "", cfg) }
/^call=/ {
    name = ""; ns = ""; per = ""
    for (f = 1; f <= NF; f++) {
        split($f, kv, "=")
        if (kv[1] == "call") name = kv[2]
        else if (kv[1] == "ns_per_call") ns = kv[2]
        else if (kv[1] == "calls_per_rep") per = kv[2]
    }
    if (!(name in seen)) { seen[name] = 1; order[++nk] = name; calls[name] = per }
    v[cfg, name] = v[cfg, name] " " ns
}
END {
    printf "%-22s %5s %9s %9s %9s %12s %9s\n", "call kind", "calls", "untraced", "traced", "wrapper", "traced", "wrapper"
    printf "%-22s %5s %9s %9s %9s %12s %9s\n", "", "/rep", "ns/call", "ns/call", "ns/call", "no-callsite", "ns/call"
    over = 0
    for (k = 1; k <= nk; k++) {
        n = order[k]
        b = median(v["untraced", n]); t = median(v["traced", n]); c = median(v["nocallsites", n])
        d[k] = t - b; e[k] = c - b
        if (d[k] > goal) over++
        printf "%-22s %5d %9.1f %9.1f %9.1f %12.1f %9.1f\n", n, calls[n], b, t, d[k], c, e[k]
    }
    dl = ""; el = ""
    for (k = 1; k <= nk; k++) { dl = dl " " d[k]; el = el " " e[k] }
    md = median(dl); me = median(el)
    printf "%-22s %5s %9s %9s %9.1f %12s %9.1f\n", "median over kinds", "", "", "", md, "", me
    print ""
    printf "goal: <= %d ns per call: median %s (%.1f ns); %d of %d kinds above the goal\n", goal,
        md <= goal ? "met" : "NOT met", md, over, nk
}' "$TMP"/untraced.* "$TMP"/traced.* "$TMP"/nocallsites.*

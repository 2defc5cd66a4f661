#!/bin/sh
# bench/sampling.sh: what one sample costs, with a stack 10 frames deep
# (docs/benchmarks.md, "Sampling and counters"). Runs build/bench/sample_cost
# (UNITS of about 1 ms of CPU work each, done 10 frames deep) with
# LD_PRELOAD=build/lib/libhcatrace.so in ROUNDS alternating rounds of three
# configurations:
#   off       HCATRACE_SAMPLING=off HCATRACE_COUNTERS=off
#   sampled   HCATRACE_SAMPLING=$PERIOD HCATRACE_COUNTERS=off
#   counted   HCATRACE_SAMPLING=$PERIOD, default counters (3 software events here)
# and prints, from medians over the rounds: the CPU time per sample
#   (cpu(sampled) - cpu(off)) / samples     (signal delivery, handler, writing)
# the part from when the counter's overflow was due to the handler (the tracer's measurement
# of the kernel's part), spent in the handler and in writing samples into the
# trace (HCATRACE_VERBOSE=2 reports all three), and the overhead this gives at sampling
# periods of 10, 20 and 50 ms. Builds nothing: run `make` first.
# Environment: ROUNDS (5), UNITS (3000), PERIOD (1ms), and HCATRACE_SAMPLING_CLOCK
# (wall, the default, or cpu) passed to the traced runs. About 1 minute.
set -eu
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIN=$ROOT/build/bench/sample_cost
LIB=$ROOT/build/lib/libhcatrace.so
ROUNDS=${ROUNDS:-5}
UNITS=${UNITS:-3000}
PERIOD=${PERIOD:-1ms}
for f in "$BIN" "$LIB"; do
    [ -e "$f" ] || { echo "bench/sampling.sh: $f is missing; run make first" >&2; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hcatrace-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cd "$TMP"

run() { # config round
    case $1 in
    off) s=off c=off ;;
    sampled) s=$PERIOD c=off ;;
    counted) s=$PERIOD c= ;;
    esac
    if [ -n "$c" ]; then
        HCATRACE_COUNTERS=$c HCATRACE_SAMPLING=$s HCATRACE_VERBOSE=2 HCATRACE_DIR="$TMP/t.$1.$2" LD_PRELOAD="$LIB" \
            "$BIN" "$UNITS" > "$TMP/$1.$2" 2>&1
    else
        HCATRACE_SAMPLING=$s HCATRACE_VERBOSE=2 HCATRACE_DIR="$TMP/t.$1.$2" LD_PRELOAD="$LIB" \
            "$BIN" "$UNITS" > "$TMP/$1.$2" 2>&1
    fi
    rm -rf "$TMP/t.$1.$2"
}

i=1
while [ "$i" -le "$ROUNDS" ]; do
    printf 'round %s/%s\r' "$i" "$ROUNDS" >&2
    if [ $((i % 2)) = 1 ]; then run off "$i"; run sampled "$i"; run counted "$i"
    else run counted "$i"; run sampled "$i"; run off "$i"; fi
    i=$((i + 1))
done
printf '%20s\r' '' >&2

echo "hcatrace cost of one sample, 10 frames deep (bench/sampling.sh)"
echo "date:    $(date '+%Y-%m-%d %H:%M %Z')"
echo "machine: $(bench_machine)"
echo "runs:    $ROUNDS rounds x (off, sampled, counted), $UNITS units of ~1 ms, sampling every $PERIOD +- 10 %"
echo
awk "$AWK_MEDIAN"'
FNR == 1 { split(FILENAME, p, "/"); cfg = p[length(p)]; sub(/\.[0-9]+$/, "", cfg) }
/^units=/ { split($2, kv, "="); cpu[cfg] = cpu[cfg] " " kv[2] }
/ samples \(/ {
    for (f = 1; f <= NF; f++) {
        if ($f == "samples") s[cfg] = s[cfg] " " $(f - 1)
        if ($f == "interrupt," && $(f - 2) == "delivering") b[cfg] = b[cfg] " " substr($(f - 4), 2)
        if ($f == "handler," && $(f - 2) == "in") h[cfg] = h[cfg] " " $(f - 4)
        if ($f == "write") w[cfg] = w[cfg] " " $(f - 3)
    }
}
END {
    off = median(cpu["off"])
    printf "%-9s %12s %9s %14s %14s %12s %12s\n", "config", "CPU ms", "samples", "ns per sample", "before handler",
        "in handler", "writing"
    printf "%-9s %12.1f %9s %14s %14s %12s %12s\n", "off", off / 1e6, "-", "-", "-", "-", "-"
    split("sampled counted", cfgs, " ")
    for (k = 1; k <= 2; k++) {
        c = cfgs[k]; t = median(cpu[c]); n = median(s[c])
        per[c] = n ? (t - off) / n : 0
        printf "%-9s %12.1f %9d %14.0f %14.0f %12.0f %12.0f\n", c, t / 1e6, n, per[c], median(b[c]), median(h[c]),
            median(w[c])
    }
    print ""
    printf "overhead of sampling (with counters) at a period of 10 ms: %.3f %%, 20 ms: %.3f %%, 50 ms: %.3f %%\n",
        per["counted"] / 1e5, per["counted"] / 2e5, per["counted"] / 5e5
}' "$TMP"/off.* "$TMP"/sampled.* "$TMP"/counted.*

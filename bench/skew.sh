#!/bin/sh
# bench/skew.sh: the skew between a sample's timestamp and its counter values,
# relative to a region boundary's (docs/benchmarks.md, "Timestamp and counter
# values of a sample"; issue 16). build/tests/flat_app keeps one thread busy
# in a user region "flat" of MS ms of computation: task-clock rises at exactly
# the clock's rate (the thread's CPU share), so every (time, task-clock) pair
# of the region's enter, samples and leave should lie on one line. Per MS:
#
# 1. In the trace (otf2-print): for consecutive events of one instance (enter
#    -> first sample, sample -> sample, last sample -> leave) with no context
#    switch in between (the context-switches counter did not move: the thread
#    ran all along), d = delta task-clock - delta time. Medians in ns:
#    enter->sample = (sample's skew - boundary's skew), sample->leave = its
#    negative, sample->sample = 0. skew = (median enter->sample - median
#    sample->leave) / 2: what is left of a general CPU shortfall cancels.
# 2. In the fold (hcafold -f json,csv): median over the folded task-clock
#    points of (y - x) (cumulative fraction above the diagonal), times the
#    mean duration (in us of CPU time: the thread was busy); the phases that
#    touch either edge (start-end and their task-clock rate relative to the
#    region's mean rate). On a loaded machine the fold is disturbed by
#    preemption; part 1 is not.
#
# Usage: bench/skew.sh   Environment: LIB (build/lib/libhcatrace.so: give
# another build's library to compare), N (400 instances), MS ("2 5 20"),
# SAMPLING (1ms). Builds nothing: run `make` first. Needs otf2-print and
# python3 (for fold.json). About 30 s.
set -eu
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
cd "$(dirname "$0")/.."
ROOT=$(pwd)
LIB=${LIB:-$ROOT/build/lib/libhcatrace.so}
APP=$ROOT/build/tests/flat_app
FOLD=$ROOT/build/bin/hcafold
N=${N:-400}
MS=${MS:-2 5 20}
SAMPLING=${SAMPLING:-1ms}
for f in "$LIB" "$APP" "$FOLD"; do
    [ -e "$f" ] || { echo "bench/skew.sh: $f is missing: run make first" >&2; exit 1; }
done
command -v otf2-print >/dev/null || { echo "bench/skew.sh: otf2-print not found" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hcaskew.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "# $(bench_machine); $(date -u '+%Y-%m-%d %H:%M') UTC; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# library $LIB; $N instances per size; sampling $SAMPLING"
printf '%-6s %8s %14s %14s %14s %10s %12s %10s  %s\n' ms pairs 'enter>sample' 'sample>leave' 'sample>sample' 'skew_ns' 'fold_y-x' 'fold_us' 'edge phases (task-clock / region mean)'
for ms in $MS; do
    d=$tmp/$ms
    mkdir -p "$d"
    (cd "$d" && HCATRACE_SAMPLING=$SAMPLING HCATRACE_DIR=$d/trace LD_PRELOAD=$LIB "$APP" "$N" "$ms" >/dev/null 2>&1)
    # 1. pairs of consecutive events of the region "flat", from otf2-print
    trace=$(otf2-print --silent -Werror "$d/trace/traces.otf2" >/dev/null 2>&1 && echo ok || echo bad)
    otf2-print "$d/trace/traces.otf2" 2>/dev/null | awk "$AWK_MEDIAN"'
        $1 == "METRIC" && /"task-clock"/ {
            ts = $3; tc = -1; cs = -1
            n = split($0, f, /\(/)
            for (i = 2; i <= n; i++) {
                if (f[i] ~ /^"task-clock"/) { split(f[i], v, /; /); tc = v[3] + 0 }
                if (f[i] ~ /^"context-switches"/) { split(f[i], v, /; /); cs = v[3] + 0 }
            }
            next
        }
        function pair(kind) {
            if (have && cs == pcs) { d = (tc - ptc) - (ts - pts); L[kind] = L[kind] " " d; N[kind]++ }
            pts = ts; ptc = tc; pcs = cs; have = 1
        }
        $1 == "CALLING_CONTEXT_ENTER" && /"flat"/ { inside = 1; have = 0; last = "enter"; pair("none"); next }
        $1 == "CALLING_CONTEXT_SAMPLE" && inside { pair(last == "enter" ? "es" : "ss"); last = "sample"; next }
        $1 == "CALLING_CONTEXT_LEAVE" && /"flat"/ { if (last == "sample") pair("sl"); inside = 0; next }
        END {
            es = median(L["es"]); sl = median(L["sl"]); ss = median(L["ss"])
            printf "%d %.0f %.0f %.0f %.0f\n", N["es"] + N["sl"] + N["ss"], es, sl, ss, (es - sl) / 2
        }' > "$d/pairs.txt"
    # 2. the fold
    "$FOLD" -q -f json,csv "$d/trace/traces.otf2" > /dev/null 2>&1 || true
    # of the duration group of "flat" with the most instances (a loaded
    # machine splits preempted instances off): median y - x of its task-clock
    # points, its mean duration, its edge phases against its mean rate
    fold=$(python3 -c '
import csv, glob, json, statistics, sys
d = sys.argv[1]
regs = json.load(open(d + "/fold.json"))["regions"]
i, r = max(((i, r) for i, r in enumerate(regs) if r["name"].startswith("flat")),
           key=lambda ir: ir[1]["instances"]["used"] if isinstance(ir[1]["instances"], dict) else ir[1]["instances"])
pts = glob.glob("%s/%02d-*.points.csv" % (d, i + 1))[0]
yx = statistics.median(float(p["y"]) - float(p["x"]) for p in csv.DictReader(open(pts))
                       if p["counter"] == "task-clock" and p["used"] == "1")
mr = [c for c in r["counters"] if c["name"] == "task-clock"][0]["mean_rate"]
e = ["%.3f-%.3f:%.4f" % (p["start"], p["end"], p["rates"]["task-clock"] / mr)
     for p in r["phases"] if p["start"] == 0 or p["end"] == 1]
print("%.6f %.2f %s" % (yx, yx * r["mean_duration_s"] * 1e6, " ".join(e)))' "$d/trace/traces.fold")
    yx=${fold%% *} fold=${fold#* }
    us=${fold%% *} edges=${fold#* }
    set -- $(cat "$d/pairs.txt")
    printf '%-6s %8s %14s %14s %14s %10s %12s %10s %s%s\n' "$ms" "$1" "$2" "$3" "$4" "$5" "$yx" "$us" " $edges" \
        "$([ "$trace" = ok ] || echo ' (otf2-print -Werror refused the trace)')"
done

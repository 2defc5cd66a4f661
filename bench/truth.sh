#!/bin/sh
# truth.sh: folds of tests/truth_app against the truth it records (issue 17):
# task-clock and page-fault MAE, CPU share, phase bounds, per sampling clock,
# period and number of ranks, idle or with competing busy processes on the
# same cores; each trace folded twice: by default (the tracer's own time
# removed) and with --keep-tool-time (as the truth measured it). Results in docs/benchmarks.md ("Sampling clock against truth").
# A third line per trace, "own": the default fold against the truth in the
# program's own time (tests/truth_tool_faults.py: each record less the
# tracer's time, CPU time and faults before it), the program without the
# tracer that the default fold shows (docs/benchmarks.md, "The page-fault
# fold's error (issue 17, branch faults17)"); needs python3-otf2 (OTF2_PYTHON).
#
#   sh bench/truth.sh [BUILD] [ITERATIONS]      (from the worktree root)
#   LOAD=2 sh bench/truth.sh ...                 two busy loops pinned to CPUs 0 and 1
#   CLOCKS="wall cpu" PERIODS="20ms 2ms" RANKS="1 2" select the runs; KEEP=1 keeps the traces
#   FOLD_ARGS="--max-points 10000000" more hcafold options (here: fit every point, not 20,000)
#   RESOLUTION=0.05 compare over cells of 0.05 (truth_fold.py --resolution; default 0.01)
#   RT=20 runs mpirun and the ranks at real-time priority 20 (chrt -f): "near idle" on
#         a machine shared with others (nothing else runs when the program wants a CPU)
#   RR=20 (with LOAD=1 or 2) the issue's loaded condition made reproducible on a shared
#         machine: mpirun, the ranks and the busy loops all round-robin at real-time
#         priority 20 (chrt -r), so that the program shares its cores with the busy loops
#         only, in slices of RR_SLICE ms (default 4, near CFS's; the kernel's
#         sched_rr_timeslice_ms is set for the run and restored after; needs root)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$TOP/$BUILD" ;; esac
N=${2:-300}
APP="$BUILD/tests/truth_app"
OTF2_PYTHON=${OTF2_PYTHON:-/usr/bin/python3}
FOLD="$BUILD/bin/hcafold"
LOAD=${LOAD:-0}
work=$(mktemp -d "${TMPDIR:-/tmp}/hcatruth.XXXXXX")
busy=""
rt=""
[ -n "${RT:-}" ] && rt="chrt -f $RT"
slice=/proc/sys/kernel/sched_rr_timeslice_ms
old_slice=""
if [ -n "${RR:-}" ]; then
    rt="chrt -r $RR"
    old_slice=$(cat "$slice") && echo "${RR_SLICE:-4}" > "$slice" || exit 1
    trap 'echo "$old_slice" > "$slice"' EXIT
    trap 'exit 1' INT TERM
fi
i=0
while [ "$i" -lt "$LOAD" ]; do # a competing process on each core
    # round-robin: not pinned, so that it takes turns with both ranks (pinned beside
    # one rank, that rank waits a whole slice after each of its sleeps, the other none)
    busy_cpus=$((i % 2))
    [ -n "${RR:-}" ] && busy_cpus=0,1
    ${RR:+chrt -r $RR} taskset -c ${BUSY_CPUS:-$busy_cpus} sh -c 'while :; do :; done' &
    busy="$busy $!"
    i=$((i + 1))
done
echo "# load: $LOAD busy loops${RR:+ (round-robin at priority $RR, slices of $(cat $slice) ms)}; $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for np in ${RANKS:-1 2}; do
    for clock in ${CLOCKS:-wall cpu}; do
        for period in ${PERIODS:-20ms 2ms}; do
            d="$work/$np-$clock-$period"
            mkdir -p "$d"
            # the preload reaches the ranks only (-x): a traced taskset would exec
            # mpirun with a sampling signal pending
            (cd "$d" && HCATRACE_SAMPLING_CLOCK=$clock HCATRACE_SAMPLING=$period \
                $rt taskset -c 0,1 mpirun --allow-run-as-root --oversubscribe -x LD_PRELOAD="$BUILD/lib/libhcatrace.so" -x HCATRACE_SAMPLING_CLOCK \
                -x HCATRACE_SAMPLING -np "$np" "$APP" "$N" truth > out 2> err) &&
                "$FOLD" -q ${FOLD_ARGS:-} --mad 1000 -f json -r truth_iter -o "$d/fold" "$d"/hcatrace-*/traces.otf2 > /dev/null 2>&1 &&
                "$FOLD" -q ${FOLD_ARGS:-} --keep-tool-time --mad 1000 -f json -r truth_iter -o "$d/kept" "$d"/hcatrace-*/traces.otf2 \
                    > /dev/null 2>&1
            # default: the tracer's time removed; kept: the run as it ran, as the truth measured it
            for f in fold kept; do
                printf '%s ranks %s clock %s, %s: ' "$np" "$clock" "$period" "$f"
                python3 "$TOP/tests/truth_fold.py" "$d/$f/fold.json" "$d"/truth.* --resolution "${RESOLUTION:-0.01}" | tr '\n' ' '
                echo
            done
            printf '%s ranks %s clock %s, own: ' "$np" "$clock" "$period"
            "$OTF2_PYTHON" "$TOP/tests/truth_tool_faults.py" "$d"/hcatrace-*/traces.otf2 "$d"/truth.* --own-dir "$d/own" |
                tr '\n' ' '
            python3 "$TOP/tests/truth_fold.py" "$d/fold/fold.json" "$d"/own/truth.* --resolution "${RESOLUTION:-0.01}" | tr '\n' ' '
            echo
        done
    done
done
for p in $busy; do kill "$p"; done
[ "${KEEP:-0}" = 1 ] && echo "# kept: $work" || rm -rf "$work"

# counter_source.sh: software counters read without perf events
# (HCATRACE_COUNTER_SOURCE, instrument/hct_counter_rusage.h) against the perf
# path and against the program's own values. tests/source_app runs, on its
# first thread and on a second one started late, marker regions with known
# counts: a 1 ms spin, 64 fresh pages written (64 minor faults), 5 sleeps (5
# voluntary context switches); it prints its own values of each instance,
# read just outside the region, and the window's wall time. With either
# source, each instance's counter deltas in the trace (its leave's values less
# its enter's) must not exceed the program's (the program's window contains
# the trace's) and fall short of them by little: a base slack for the
# tracer's work at the two boundaries, plus the tracer's CPU time and the
# context switches the trace itself records just outside the instance (a
# drain that waited for the symbolizer, measured up to 67 ms and 10 switches
# after a leave under ASan). perf's task-clock is a different clock from the
# thread's CPU clock: it may fall short of it by a few microseconds per
# context switch in the instance, and it counts time the scheduler charges to
# no thread (the hypervisor's steal, interrupts: a 1 ms spin measured 1,005 us
# by perf against 917 us of the thread's CPU clock), so its bound is the
# window's wall time. The spin reads only the monotonic clock, so a CPU
# time read without the running delta misses most of it at the region's end.
# A source that read the process's totals (the other thread counts at the
# same time: RUSAGE_SELF fails 3 of 3 kinds), CPU time of tick resolution (4
# ms: 38 of 38 spins off; getrusage's ru_utime + ru_stime are whole ticks on
# older kernels, exact to the microsecond on this one, 6.18, where they pass),
# or values that do not continue across threads would fail. Each
# region's first instance is left out: the thread's first boundary at a region
# also looks up its call path after the read (waits for the symbolizer: extra
# switches and CPU). The default source here (no PMU) must open no perf
# event on the program's threads.
. "$(dirname "$0")/lib.sh"

APP="$BUILD/tests/source_app"
[ -x "$APP" ] || APP="$TOP/build/tests/source_app"
ITER=20
CPU_SLACK=300000 # ns of CPU time the program's window has beyond the trace's (the tracer's work)
FAULT_SLACK=8    # its page faults (a flush of the thread's events writes new pages)
SWITCH_SLACK=10  # its context switches (a flush's write, preemptions under load); at most 1 per instance on average
PERF_SWITCH_LAG=25000 # ns per context switch perf's task-clock may miss (below)

if ! command -v strace >/dev/null 2>&1; then
    echo "ok 1 # SKIP strace not installed"
    exit 0
fi
SECCOMP=--seccomp-bpf
strace -f $SECCOMP -e trace=perf_event_open -o /dev/null true > /dev/null 2>&1 || SECCOMP=""

dir=$(fresh_dir)
cd "$dir" || exit 1

# the trace's deltas per instance: "trace REGION INSTANCE CPU_NS FAULTS
# SWITCHES TOOL_CPU_OUT SWITCHES_OUT". The last two are what the trace says
# happened just outside the instance, on its thread: the tracer's CPU time
# (tool:cpu_time) from the boundary before the enter to the enter, and from
# the leave to the boundary after it, and the context switches the counters
# saw over the same two stretches. The program's window holds both stretches'
# tracer work (its reads around the region are nearer than those boundaries),
# for example a drain that waits for the symbolizer after a sample in the
# region: the program's count may exceed the trace's by that much.
deltas() { # TRACE
    otf2-print "$1" 2> /dev/null | awk '
    function val(name,   r) {
        if (!match($0, "\"" name "\" <[0-9]+>; UINT64; [0-9]+")) return -1
        r = substr($0, RSTART, RLENGTH); sub(/.*; /, "", r); return r
    }
    # per location, the boundaries with counter values (c*) and with tool time (t*), in order
    $1 == "METRIC" && /"task-clock"/ {
        l = $2; k = nc[l] + 0
        if (!(k && cts[l, k - 1] == $3)) { cts[l, k] = $3; ci[l, $3] = k; nc[l] = ++k }
        k = ci[l, $3]; cpu[l, k] = val("task-clock"); pf[l, k] = val("page-faults"); cs[l, k] = val("context-switches")
    }
    $1 == "METRIC" && /"tool:cpu_time"/ {
        l = $2; k = nt[l] + 0
        if (!(k && tts[l, k - 1] == $3)) { tts[l, k] = $3; ti[l, $3] = k; nt[l] = ++k }
        tool[l, ti[l, $3]] = val("tool:cpu_time")
    }
    $1 == "CALLING_CONTEXT_ENTER" || $1 == "CALLING_CONTEXT_LEAVE" {
        l = $2; r = $0; sub(/.*Calling Context: "/, "", r); sub(/".*/, "", r)
        if (!((l, $3) in ci)) next # no values at this boundary
        if ($1 == "CALLING_CONTEXT_ENTER") { enter[r] = $3; open[r] = 1 }
        else if (open[r]) { m = ni++; il[m] = l; ir[m] = r; ik[m] = cnt[r]++; ie[m] = enter[r]; ix[m] = $3; open[r] = 0 }
    }
    # the value of array a at the boundary of index i (-1 when out of range)
    function at(a, l, i, n) { return i >= 0 && i < n ? a[l, i] : -1 }
    function stretch(a, l, from, to, n,   x, y) { x = at(a, l, from, n); y = at(a, l, to, n); return x >= 0 && y >= 0 ? y - x : 0 }
    END {
        for (m = 0; m < ni; m++) {
            l = il[m]; e = ci[l, ie[m]]; x = ci[l, ix[m]]
            out_cs = stretch(cs, l, e - 1, e, nc[l]) + stretch(cs, l, x, x + 1, nc[l])
            out_tool = 0
            if ((l, ie[m]) in ti && (l, ix[m]) in ti) {
                te = ti[l, ie[m]]; tx = ti[l, ix[m]]
                out_tool = stretch(tool, l, te - 1, te, nt[l]) + stretch(tool, l, tx, tx + 1, nt[l])
            }
            printf "trace %s %d %d %d %d %d %d\n", ir[m], ik[m], cpu[l, x] - cpu[l, e], pf[l, x] - pf[l, e], cs[l, x] - cs[l, e], out_tool, out_cs
        }
    }'
}

# compare FILE: per region kind, instances checked and those outside the bounds
compare() { # FILE SOURCE
    awk -v cs="$CPU_SLACK" -v fs="$FAULT_SLACK" -v ss="$SWITCH_SLACK" -v lag="$PERF_SWITCH_LAG" -v source="$2" '
    $1 == "truth" { t[$2 " " $3] = $4 " " $5 " " $6 " " $7 }
    $1 == "trace" && $3 > 0 && ($2 " " $3) in t {
        split(t[$2 " " $3], v, " ")
        kind = $2; sub(/[0-9]+$/, "", kind)
        checked[kind]++
        # the CPU time perf may miss per context switch; the most it may count
        # (perf: the window wall time; the thread CPU clock: its own value)
        miss = source == "perf" ? lag * v[3] : 0
        cpu_most = source == "perf" ? v[4] : v[1]
        d = kind == "spin" ? v[1] - $4 : kind == "touch" ? v[2] - $5 : v[3] - $6
        slack = kind == "spin" ? cs + miss + $7 : kind == "touch" ? fs : ss + $8
        under = kind == "spin" ? cpu_most - v[1] : 0
        if (d < -under || d > slack) { bad[kind]++; if (!(kind in first)) first[kind] = $0 " against " t[$2 " " $3] }
        excess[kind] += kind == "spin" ? 0 : d
        if ($4 > cpu_most || $5 > v[2] || $6 > v[3]) { above[kind]++; if (!(kind in first)) first[kind] = $0 " above " t[$2 " " $3] }
    }
    END {
        for (k in checked) {
            if (excess[k] > checked[k]) bad[k]++
            printf "%s %d %d %d %.2f %s\n", k, checked[k], bad[k] + 0, above[k] + 0, excess[k] / checked[k], first[k]
        }
    }' "$1"
}

for source in auto perf; do
    HCATRACE_COUNTER_SOURCE=$source HCATRACE_THIN=off HCATRACE_DIR="$dir/$source" LD_PRELOAD="$PRELOAD" \
        "$APP" $ITER > "$source.out" 2> "$source.err"
    ok $? "counter_source: $source: traced run exit code 0"
    check "counter_source: $source: the program finished" grep -q "^source_app: done" "$source.out"
    deltas "$dir/$source/traces.otf2" > "$source.deltas"
    cat "$source.out" "$source.deltas" > "$source.both"
    compare "$source.both" $source > "$source.cmp"
    for kind in spin touch sleep; do
        line=$(awk -v k=$kind '$1 == k' "$source.cmp")
        set -- $line
        checked=${2:-0} bad=${3:-0} above=${4:-0} mean=${5:-0}
        ok "$([ "$checked" -ge $((2 * (ITER - 1))) ] && [ "$bad" -eq 0 ] && [ "$above" -eq 0 ]; echo $?)" \
            "counter_source: $source: $kind: $checked instances on 2 threads, $bad off the program's values, $above above them (mean excess of the program's count $mean)${6:+ (first: ${line#* * * * * })}"
    done
done

# what the trace says about the values: the default source names itself
check "counter_source: auto: task-clock described as the thread's CPU clock" \
    sh -c "otf2-print -G '$dir/auto/traces.otf2' | grep 'Name: \"task-clock\"' | grep -q CLOCK_THREAD_CPUTIME_ID"
check "counter_source: perf: task-clock described as a perf event only" \
    sh -c "! otf2-print -G '$dir/perf/traces.otf2' | grep 'Name: \"task-clock\"' | grep -q CLOCK_THREAD_CPUTIME_ID"
# and hcafold passes it on (fold.json's counter "description": the truth
# scripts pick the CPU clock to compare with by it, tests/truth_fold.py):
# short runs sampled every millisecond, so that samples land in the regions
# (at 20 ms some runs have none in any region)
for source in auto perf; do
    HCATRACE_COUNTER_SOURCE=$source HCATRACE_SAMPLING=1ms HCATRACE_DIR="$dir/f$source" LD_PRELOAD="$PRELOAD" \
        "$APP" 5 > "f$source.out" 2> "f$source.err"
    "$BUILD/bin/hcafold" -q -f json --min-samples 1 --min-instances 2 -o "$dir/$source.fold" "$dir/f$source/traces.otf2" \
        > /dev/null 2>&1
done
described() { # FOLD_JSON: the task-clock descriptions naming the thread's CPU clock, of all
    python3 -c 'import json, sys
c = [k for r in json.load(open(sys.argv[1]))["regions"] for k in r["counters"] if k["name"] == "task-clock"]
print(len(c), sum("CLOCK_THREAD_CPUTIME_ID" in k.get("description", "") for k in c))' "$1" 2> /dev/null
}
fa=$(described "$dir/auto.fold/fold.json") fp=$(described "$dir/perf.fold/fold.json")
ok "$(set -- $fa $fp; [ "${1:-0}" -gt 0 ] && [ "$2" = "$1" ] && [ "${3:-0}" -gt 0 ] && [ "$4" = 0 ]; echo $?)" \
    "counter_source: fold.json describes task-clock as the trace does (folded regions, of them naming the thread's CPU clock: auto ${fa:-none}, perf ${fp:-none})"
# perf events opened: at load (which events exist) by the first thread; none
# by the second thread (a short run under strace, stopped at perf_event_open
# only where seccomp-bpf allows: stopped at every call, the threads' counts differ)
perf_threads() { awk '/perf_event_open\(/ && !/ENOENT|EACCES|EINVAL/ { p[$1] = 1 } END { print length(p) }' "$1"; }
for source in auto perf; do
    HCATRACE_COUNTER_SOURCE=$source HCATRACE_DIR="$dir/st$source" \
        strace -f $SECCOMP -e trace=perf_event_open -E LD_PRELOAD="$PRELOAD" -o "$source.st" "$APP" 2 \
        > "st$source.out" 2> "st$source.err"
done
pa=$(perf_threads auto.st) pp=$(perf_threads perf.st)
ok "$([ "$pa" -le 1 ] && [ "$pp" -ge 2 ]; echo $?)" \
    "counter_source: threads opening perf events: $pa with auto (the load-time checks only), $pp with perf"
[ -n "${KEEP:-}" ] || { cd / && rm -rf "$dir"; }

# counter_source.sh: software counters read without perf events
# (HCATRACE_COUNTER_SOURCE, instrument/hct_counter_rusage.h) against the perf
# path and against the program's own values. tests/source_app runs, on its
# first thread and on a second one started late, marker regions with known
# counts: a 1 ms spin, 64 fresh pages written (64 minor faults), 5 sleeps (5
# voluntary context switches); it prints its own values of each instance,
# read just outside the region. With either source, each instance's counter
# deltas in the trace (its leave's values less its enter's) must not exceed
# the program's (the program's window contains the trace's) and fall short of
# them by little: the tracer's work at the two boundaries (perf's task-clock
# may fall short of the thread's CPU clock by a few more microseconds per
# context switch in the instance). The spin reads only the monotonic clock, so
# a CPU time read without the running delta (getrusage's ru_utime + ru_stime)
# misses most of it at the region's end. A source
# that read the process's totals (the other thread counts at the same time),
# CPU time without the running delta (getrusage's ru_utime + ru_stime: whole
# ticks), or values that do not continue across threads would fail. Each
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

# the trace's deltas per instance: "trace REGION INSTANCE CPU_NS FAULTS SWITCHES"
deltas() { # TRACE
    otf2-print "$1" 2> /dev/null | awk '
    function val(name,   r) {
        if (!match($0, "\"" name "\" <[0-9]+>; UINT64; [0-9]+")) return -1
        r = substr($0, RSTART, RLENGTH); sub(/.*; /, "", r); return r
    }
    $1 == "METRIC" && /"task-clock"/ { l = $2; cpu[l] = val("task-clock"); pf[l] = val("page-faults"); cs[l] = val("context-switches"); at[l] = $3 }
    $1 == "CALLING_CONTEXT_ENTER" || $1 == "CALLING_CONTEXT_LEAVE" {
        l = $2; r = $0; sub(/.*Calling Context: "/, "", r); sub(/".*/, "", r)
        if (at[l] != $3) next # no values at this boundary
        if ($1 == "CALLING_CONTEXT_ENTER") { c0[r] = cpu[l]; f0[r] = pf[l]; s0[r] = cs[l]; open[r] = 1 }
        else if (open[r]) { printf "trace %s %d %d %d %d\n", r, k[r]++, cpu[l] - c0[r], pf[l] - f0[r], cs[l] - s0[r]; open[r] = 0 }
    }'
}

# compare FILE: per region kind, instances checked and those outside the bounds
compare() { # FILE LAG: LAG ns of CPU time per context switch the source may miss
    awk -v cs="$CPU_SLACK" -v fs="$FAULT_SLACK" -v ss="$SWITCH_SLACK" -v lag="$2" '
    $1 == "truth" { t[$2 " " $3] = $4 " " $5 " " $6 }
    $1 == "trace" && $3 > 0 && ($2 " " $3) in t {
        split(t[$2 " " $3], v, " ")
        kind = $2; sub(/[0-9]+$/, "", kind)
        checked[kind]++
        d = kind == "spin" ? v[1] - $4 : kind == "touch" ? v[2] - $5 : v[3] - $6
        slack = kind == "spin" ? cs + lag * v[3] : kind == "touch" ? fs : ss
        under = kind == "spin" ? lag * v[3] : 0
        if (d < -under || d > slack) { bad[kind]++; if (!(kind in first)) first[kind] = $0 " against " t[$2 " " $3] }
        excess[kind] += kind == "spin" ? 0 : d
        # no count above the program values (perf task-clock: by its lag)
        if ($4 > v[1] + lag * v[3] || $5 > v[2] || $6 > v[3]) { above[kind]++ }
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
    # perf task-clock runs only while the thread's perf context is in: around
    # each context switch it misses a few microseconds the thread's CPU
    # clock has (2-9 us per switch measured here)
    lag=0
    [ $source = perf ] && lag=$PERF_SWITCH_LAG
    compare "$source.both" $lag > "$source.cmp"
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

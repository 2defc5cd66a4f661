# fold_flat.sh: end to end, tracer and hcafold on a program with known CPU
# rates (tests/flat_app; issue 16): a thread busy in a user region "flat" has
# task-clock rising at exactly its CPU share, so the fold must show one flat
# rate from 0 to 1: no edge phase narrower than 0.03, and the rate at 0-0.02
# and 0.98-1 within 0.5 % of the region's own mean rate (total task-clock /
# total duration of the folded instances), which is one CPU (1 G/s) when the
# thread had one; a region "step" (busy, then asleep) keeps its two phases
# and no narrow edge phase. The trace's own pairs check the tracer: between
# an enter and the first sample, and between the last sample and the leave,
# with no context switch in between, task-clock advances as the clock does
# (the sample's timestamp and counter values come from the same instant).
. "$(dirname "$0")/lib.sh"
APP="$BUILD/tests/flat_app"
[ -x "$APP" ] || APP="$TOP/build/tests/flat_app"
FOLD="$BUILD/bin/hcafold"
dir=$(fresh_dir)
cd "$dir" || exit 1

# two runs: the flat region alone (a thread that never sleeps: preemption
# falls anywhere in its instances, and the preempted ones are outliers), then
# flat and step (after a sleep the scheduler lets a thread run longer, so on a
# loaded machine the start of the next instance gets more CPU: true, but not
# flat)
mkdir flat_run step_run
(cd flat_run && HCATRACE_SAMPLING=1ms LD_PRELOAD="$PRELOAD" "$APP" 400 4 > out 2> err)
ok $? "traced run of flat_app: 400 x 4 ms busy"
(cd step_run && HCATRACE_SAMPLING=1ms LD_PRELOAD="$PRELOAD" "$APP" -s 150 4 > out 2> err)
ok $? "traced run of flat_app -s: 150 x (4 ms busy; 4 ms busy + 4 ms asleep)"
trace=$(cd flat_run && the_trace) && trace=$dir/flat_run/$trace
step_trace=$(cd step_run && the_trace) && step_trace=$dir/step_run/$step_trace
valid_otf2 "$trace" && valid_otf2 "$step_trace"
ok $? "otf2-print --silent -Werror and the conformance checker accept the traces"

# per duration group G of the region (hcafold splits instances of clearly
# different durations, e.g. preempted ones, into groups): REGION/phases.G
# ("start end task-clock-rate" per phase), REGION/mean.G (the group's mean
# task-clock rate), REGION/curves.G (its curves.csv)
fold_region() { # REGION TRACE: that region alone into REGION/
    "$FOLD" -q -f json,csv -r "$1" -o "$1" "$2" > /dev/null 2> "$1.err" || return 1
    awk -v d="$1" '
        /^\t\t\t"name":/ { g++ }
        /"name":/ && /"task-clock"/ { tc = 1 }
        tc && /"mean_rate":/ { gsub(/[^0-9.e+-]/, "", $2); print $2 > (d "/mean." g); tc = 0 }
        /"start":/ { gsub(/[^0-9.e+-]/, "", $2); s = $2 }
        /"end":/ { gsub(/[^0-9.e+-]/, "", $2); e = $2 }
        /"rates":/ { inrates = 1; next }
        inrates && /"task-clock":/ { gsub(/[^0-9.e+-]/, "", $2); print s, e, $2 > (d "/phases." g); inrates = 0 }
    ' "$1/fold.json"
    g=0
    for f in "$1"/*.curves.csv; do
        g=$((g + 1))
        cp "$f" "$1/curves.$g"
    done
    [ -s "$1/mean.1" ] && [ -s "$1/phases.1" ]
}
groups() { ls "$1" | sed -n 's/^phases\.//p' | sort -n; }
# the groups that had a whole CPU (mean >= 0.99 G/s)
with_cpu() { for g in $(groups flat); do awk -v m="$(cat flat/mean.$g)" 'BEGIN { exit !(m >= 0.99e9) }' && echo $g; done; }
fold_region flat "$trace"
ok $? "hcafold folds the region flat"
fold_region step "$step_trace"
ok $? "hcafold folds the region step"
if [ -z "$(with_cpu)" ]; then # other work took the CPU all along: once more
    echo "# flat: the thread never had a whole CPU ($(cat flat/mean.* | tr '\n' ' ')/s); tracing it again"
    rm -rf flat_run/hcatrace-* flat
    (cd flat_run && HCATRACE_SAMPLING=1ms LD_PRELOAD="$PRELOAD" "$APP" 400 4 > out 2> err) &&
        trace=$dir/flat_run/$(cd flat_run && the_trace) && fold_region flat "$trace"
fi
for g in $(groups flat); do
    echo "# flat, group $g: mean task-clock rate $(cat flat/mean.$g) /s; phases: $(tr '\n' ';' < flat/phases.$g)"
done

# no phase narrower than 0.03 at either edge
for r in flat step; do
    narrow=$(cat $r/phases.* 2>/dev/null | awk '($1 == 0 || $2 == 1) && $2 - $1 < 0.03 - 1e-9' | wc -l)
    ok "$narrow" "$r: no phase narrower than 0.03 at either edge"
done

# The truth of "flat" is the thread's CPU share over normalized time: one
# CPU when the thread had one (CI runs alone on an idle machine, and the mean
# says so). On a loaded machine it is not known, and need not be flat: the
# preempted instances show where they lost the CPU. So the rates are judged
# in the duration groups whose mean rate is one CPU (at least 0.99 G/s).
within() { awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= w * p / 100) }'; }
cpu=$(with_cpu)
if [ -n "$cpu" ]; then
    bad_edge=0 bad_phase=0 bad_cpu=0 ncpu=0 report=
    for g in $cpu; do
        mean=$(cat flat/mean.$g)
        # the folded rate at 0-0.02 and 0.98-1: the fitted curve on its grid
        set -- $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "rate_task-clock") c = i; next }
            c && $1 <= 0.02 + 1e-9 { a += $c; na++ } c && $1 >= 0.98 - 1e-9 { b += $c; nb++ }
            END { if (na && nb) printf "%.6g %.6g", a / na, b / nb }' flat/curves.$g)
        start=${1:-0} end=${2:-0}
        report="$report group $g: $start, $end (mean $mean);"
        within "$start" "$mean" 0.5 && within "$end" "$mean" 0.5 || bad_edge=$((bad_edge + 1))
        # against one CPU where the thread had one: its mean within 0.2 % of it
        # (at 0.99-0.998 the truth is the mean, checked above)
        if awk -v m="$mean" 'BEGIN { exit !(m >= 0.998e9) }'; then
            ncpu=$((ncpu + 1))
            within "$start" 1e9 0.5 && within "$end" 1e9 0.5 || bad_cpu=$((bad_cpu + 1))
        fi
        # every phase, at the edges or not, has the mean rate
        bad_phase=$((bad_phase + $(awk -v m="$mean" '{ d = $3 - m; if (d < 0) d = -d; if (!(d <= m * 0.005)) print }' flat/phases.$g | wc -l)))
    done
    ok $bad_edge "flat: folded task-clock rate at 0-0.02 and 0.98-1 within 0.5 % of the mean rate ($report)"
    ok $bad_phase "flat: every phase runs at the mean rate within 0.5 %"
    if [ "$ncpu" -gt 0 ]; then
        ok $bad_cpu "flat: edge rates within 0.5 % of one CPU, 1 G/s, in the $ncpu groups whose mean is one CPU within 0.2 %"
    else
        ok 0 "flat: edge rates within 0.5 % of 1 G/s # SKIP no group's mean within 0.2 % of one CPU (a loaded machine): the mean check stands"
    fi
else
    why="the thread never had a whole CPU ($(cat flat/mean.* | tr '\n' ' ')/s: a loaded machine)"
    for what in "edge rates within 0.5 % of the mean" "every phase at the mean rate" "edge rates within 0.5 % of 1 G/s"; do
        ok 0 "flat: $what # SKIP $why"
    done
fi

# step: busy, then asleep: a busy phase from 0, a sleeping one to 1 (where
# the boundary falls, and how sharp it is, depends on the CPU share)
first=$(awk 'NR == 1 && $1 == 0 { print $3 }' step/phases.1)
last=$(awk 'END { if ($2 == 1) print $3 }' step/phases.1)
echo "# step: phases: $(tr '\n' ';' < step/phases.1)"
# (near zero when the thread had a CPU: the fitted curve's transition, a few
# hundredths of the region wide, leaves up to a few % of the busy rate in the
# sleeping phase's mean; on a loaded machine the preempted busy halves of some
# instances reach into the other's sleep)
# (whether the thread had a CPU during this run, not the flat one: two phases
# that meet at 0.5 +- 0.05, where the busy time ends without preemption)
step_cpu=$(awk 'END { if (NR == 2 && $1 >= 0.45 && $1 <= 0.55) print "yes" }' step/phases.1)
lim=0.05 why="the thread had a CPU"
[ -n "$cpu" ] && [ -n "$step_cpu" ] || lim=0.5 why="a loaded machine"
nphases=$(grep -c . step/phases.1)
if [ -z "$step_cpu" ] && [ "$nphases" -lt 2 ]; then
    # preempted busy halves make the boundary's interval too wide to keep it
    ok 0 "step: a busy phase, then a sleeping one # SKIP one phase only: the boundary's interval was too wide on a loaded machine"
else
    ok "$(awk -v f="${first:-0}" -v l="${last:--1}" -v k=$lim 'BEGIN { print (f > 0 && l >= 0 && l <= k * f) ? 0 : 1 }')" \
        "step: a busy phase from 0 (${first:-none} /s), a sleeping one to 1 below $lim of it, $why (${last:-none} /s)"
fi

# the tracer: unpreempted pairs enter -> first sample and last sample ->
# leave of "flat", d = delta task-clock - delta time (ns), median of each
otf2-print "$trace" 2> /dev/null | awk '
    $1 == "METRIC" && /"task-clock"/ {
        ts = $3; n = split($0, f, /\(/)
        for (i = 2; i <= n; i++) {
            if (f[i] ~ /^"task-clock"/) { split(f[i], v, /; /); tc = v[3] + 0 }
            if (f[i] ~ /^"context-switches"/) { split(f[i], v, /; /); cs = v[3] + 0 }
        }
        next
    }
    function pair(kind) {
        if (have && cs == pcs) print kind, (tc - ptc) - (ts - pts)
        pts = ts; ptc = tc; pcs = cs; have = 1
    }
    $1 == "CALLING_CONTEXT_ENTER" && /"flat"/ { inside = 1; have = 0; last = "enter"; pair("none"); next }
    $1 == "CALLING_CONTEXT_SAMPLE" && inside { pair(last == "enter" ? "es" : "ss"); last = "sample"; next }
    $1 == "CALLING_CONTEXT_LEAVE" && /"flat"/ { if (last == "sample") pair("sl"); inside = 0 }' > pairs.txt
med() { awk -v k="$1" '$1 == k { print $2 }' pairs.txt | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }
es=$(med es) sl=$(med sl)
skew=$(awk -v a="${es:-0}" -v b="${sl:-0}" 'BEGIN { printf "%.0f", (a - b) / 2 }')
echo "# unpreempted pairs: $(grep -c . pairs.txt); median d enter->sample ${es:-none} ns, sample->leave ${sl:-none} ns"
ok "$(awk -v s="$skew" -v a="${es:-x}" -v b="${sl:-x}" 'BEGIN { if (s < 0) s = -s; print (a != "x" && b != "x" && s <= 2000) ? 0 : 1 }')" \
    "the tracer: a sample's counter values are no more than 2 us of CPU time apart from a boundary's (skew $skew ns; 10.7 us before issue 16)"
cd / && rm -rf "$dir"

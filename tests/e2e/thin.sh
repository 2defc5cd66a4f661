# thin.sh: cost that follows what the analysis needs (HCATRACE_THIN,
# HCATRACE_FILTER): tests/thin_app opens many tiny OpenMP critical sections and
# user regions "tiny" on 2 threads, and every LONG-th iteration a critical
# section and a region "long" of about 2 ms. After the first instances of a
# key (26 to 100 for keys whose instances are short against the tracer's cost of
# writing one: until that is certain; HCATRACE_THIN's N otherwise), only the instances that last, hold a sample or hold another written
# instance are written; the others are counted in the trace (HCATRACE::THINNED),
# and written plus counted is every instance. The trace stays conformant.
. "$(dirname "$0")/lib.sh"

APP="$BUILD/tests/thin_app"
[ -d "$TOP/build/tests" ] && [ -x "$TOP/build/tests/thin_app" ] && APP="$TOP/build/tests/thin_app" # never sanitized
ITER=5000
LONG=500
ALL=$((2 * ITER))
PROBE=100 # HCT_THIN_PROBE: a short key's instances written in full at most (HCATRACE_THIN unset)
CHEAP=26  # and at least: the probe's 26th short instance makes the key cheap (more than a quarter)
LONGS=$((2 * ITER / LONG))
export OMP_NUM_THREADS=2

# instances of region $2 written (tracestat's "region" line) and counted as thinned
written() { awk -v r="$2" '$1 == "region" { name = $2; for (i = 3; i < NF && $i != "instances"; i++) name = name " " $i; if (name == r) print $(i + 1) }' "$1" | head -1; }
thinned() { awk -v r="$2" '$1 == "thinned" { name = $2; for (i = 3; i < NF && $i != "instances"; i++) name = name " " $i; if (name == r) print $(i + 1) }' "$1" | head -1; }

# traced_pair LABEL PROGRAM: PROGRAM $ITER $LONG untraced and traced in the current
# directory: the exit code, stdout unchanged, a valid trace ($trace), its tracestat in stat.txt
traced_pair() {
    "$2" $ITER $LONG > plain.out 2> plain.err
    LD_PRELOAD="$PRELOAD" "$2" $ITER $LONG > traced.out 2> traced.err
    ok $? "$1: exit code 0"
    check "$1: stdout identical" cmp plain.out traced.out
    trace=$(the_trace)
    check "$1: the trace is valid and conformant" valid_otf2 "$trace"
    "$TRACESTAT" "$trace" > stat.txt
}

dir=$(fresh_dir)
cd "$dir" || exit 1
traced_pair thin "$APP"
for r in tiny "omp critical"; do
    w=$(written stat.txt "$r")
    t=$(thinned stat.txt "$r")
    ok $((${w:-0} + ${t:-0} != ALL)) "thin: '$r' written ($w) + thinned ($t) = every instance ($ALL)"
    ok $((${t:-0} < ALL / 2)) "thin: most instances of '$r' thinned by default ($t)"
done
ok $(($(written stat.txt long) != LONGS)) "thin: every 'long' instance written ($(written stat.txt long) of $LONGS)"
# the long critical sections after the first CHEAP to PROBE per thread (the
# cost rule: these keys' instances are short against the tracer's cost of
# writing one): above the threshold, written; far fewer than 1000 per thread
# in full
w=$(written stat.txt "omp critical")
ok $(((w < 2 * CHEAP + LONGS - 2 || w > 2 * PROBE + LONGS) && w < 2000)) \
    "thin: the first $CHEAP to $PROBE and the long critical sections written ($w)"
grep -q '^location .* balanced yes monotonic yes' stat.txt
ok $? "thin: regions balanced, time monotonic"
awk '$1 == "thinned" { if ($0 !~ / time_ns [1-9][0-9]*$/) bad = 1 } END { exit bad }' stat.txt
ok $? "thin: thinned instances have their total time"
# hcafold says what was not written: summary, fold.json, report.html
"$BUILD/bin/hcafold" -o fold "$trace" > fold.txt 2> fold.err
t=$(thinned stat.txt tiny)
grep -q "^not written by the tracer (thinned): tiny, $t instances, [0-9.]* s, on 2 locations$" fold.txt
ok $? "thin: hcafold's summary lists the thinned instances of 'tiny' ($t)"
"$OTF2_PYTHON" - fold/fold.json "$t" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tiny = [x for x in d["thinned"] if x["region"] == "tiny"]
sys.exit(0 if len(tiny) == 1 and tiny[0]["instances"] == int(sys.argv[2]) and tiny[0]["time_s"] > 0 and tiny[0]["locations"] == 2 else 1)
PY
ok $? "thin: fold.json lists them"
grep -q "<p id=\"thinned\">.*<code>tiny</code> $t instances" fold/report.html
ok $? "thin: report.html lists them"

# No sample lost in the tracer: with every instance written (HCATRACE_THIN=off)
# the tracer is most of this program's time, and a sample that lands in it is
# taken when the thread leaves it (before: 104 of 250 samples dropped as "lost
# in the tool"), at the wrapper's call site, so the trace stays conformant.
rm -rf hcatrace-*
HCATRACE_THIN=off HCATRACE_SAMPLING=5ms LD_PRELOAD="$PRELOAD" "$APP" 20000 $LONG > off.out 2> off.err
ok $? "thin off: exit code 0"
trace=$(the_trace)
check "thin off: the trace is valid and conformant" valid_otf2 "$trace"
"$TRACESTAT" "$trace" > off.txt
set -- $(awk '$1 == "sampling" { for (i = 3; i <= NF; i++) { split($i, a, "="); v[a[1]] += a[2] } }
    END { print v["samples"] + 0, v["lost_in_tool"] + 0 }' off.txt)
ok $(($1 < 100 || $2 != 0)) "thin off: no sample lost in the tracer ($2 lost, $1 written)"
cd / && rm -rf "$dir"

# off: everything written
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_THIN=off LD_PRELOAD="$PRELOAD" "$APP" $ITER $LONG > traced.out 2> traced.err
trace=$(the_trace)
"$TRACESTAT" "$trace" > stat.txt
ok $(($(written stat.txt tiny) != ALL || $(grep -c '^thinned ' stat.txt) != 0)) "thin: HCATRACE_THIN=off writes every instance"
cd / && rm -rf "$dir"

# a sample lands in an instance: it is written, whatever its length (threshold 1 s)
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_THIN=1,1s HCATRACE_SAMPLING=1ms LD_PRELOAD="$PRELOAD" "$APP" $ITER $LONG > traced.out 2> traced.err
trace=$(the_trace)
check "thin: samples in kept-back instances: valid and conformant" valid_otf2 "$trace"
"$TRACESTAT" "$trace" > stat.txt
w=$(written stat.txt long)
t=$(thinned stat.txt long)
ok $((${w:-0} + ${t:-0} != LONGS || ${w:-0} <= 2)) "thin: 'long' instances holding samples written ($w, thinned $t)"
s=$(awk '$1 == "region" && $2 == "long" { for (i = 3; i < NF; i++) if ($i == "samples") print $(i + 1) }' stat.txt)
ok $((${s:-0} < ${w:-0} - 2)) "thin: their samples inside them ($s samples in $w instances)"
# their calling contexts: those of a run writing every instance (a kept-back
# enter's call path is unwound only when it is written, from its caller's
# frame, still running: the same path as unwound at the enter)
paths() { awk '$1 == "context" && ($3 ~ /^(tiny|long)@/ || ($3 == "omp" && $4 ~ /^critical@/)) { $1 = ""; $2 = ""; print }' "$1" | sort -u; }
paths stat.txt > late.txt
rm -rf hcatrace-*
HCATRACE_THIN=off LD_PRELOAD="$PRELOAD" "$APP" $ITER $LONG > off.out 2> off.err
"$TRACESTAT" "$(the_trace)" > off.txt
paths off.txt > full.txt
ok $(($(grep -c . late.txt) < 3 || $(grep -c . full.txt) < 3)) "thin: calling contexts of 'tiny', 'long', 'omp critical' ($(grep -c . late.txt) written late, $(grep -c . full.txt) in full)"
comm -23 late.txt full.txt > wrong.txt
ok $(($(grep -c . wrong.txt) != 0)) "thin: kept-back instances written with the calling contexts of a run writing every instance"
sed 's/^/# not in full: /' wrong.txt | head -3
cd / && rm -rf "$dir"

# a kept-back fork's call path from the thread's path cache (hct_path_cache.c)
# through a frame addressed by its frame pointer (tests/fork_path_app: the
# fork in region_step, a variable-length array, called from phase_a and
# phase_b with the fork at the same stack address, region_step's frame
# elsewhere): the forks written late (the long regions, as many from each)
# have their caller's context, as in a run writing every instance. A cache
# taking region_step's frame for one of fixed size gives one caller's path to
# the other's forks (checked: phase_a 100 and phase_b 482 events then, 290
# each with the check).
FPA="$BUILD/tests/fork_path_app"
[ -x "$TOP/build/tests/fork_path_app" ] && FPA="$TOP/build/tests/fork_path_app" # never sanitized
# fork_paths LABEL THREADS: the checks below at OMP_NUM_THREADS=THREADS; with
# one thread a kept-back fork's contexts are found only when its share is
# written (hct_openmp.c, fork_context), on the master, against its path then
fork_paths() {
    dir=$(fresh_dir)
    cd "$dir" || exit 1
    FITER=2000
    FLONG=10
    OMP_NUM_THREADS=$2 "$FPA" $FITER $FLONG > plain.out
    OMP_NUM_THREADS=$2 LD_PRELOAD="$PRELOAD" "$FPA" $FITER $FLONG > traced.out 2> traced.err
    ok $? "thin fork paths ($1): exit code 0"
    check "thin fork paths ($1): stdout identical" cmp plain.out traced.out
    check "thin fork paths ($1): valid and conformant (the forks written late at their ticks' time)" valid_otf2 "$(the_trace)"
    "$TRACESTAT" "$(the_trace)" > late.txt
    rm -rf hcatrace-*
    HCATRACE_THIN=off OMP_NUM_THREADS=$2 LD_PRELOAD="$PRELOAD" "$FPA" $FITER $FLONG > off.out 2> off.err
    "$TRACESTAT" "$(the_trace)" > full.txt
    # events in the context of region_step's parallel region called from $2
    events_from() { awk -v c="$2@" '$1 == "context" && $3 ~ /^region_step\._omp_fn\.0@/ { for (i = 4; i <= NF; i++) if (index($i, c) == 1) n += $2 } END { print n + 0 }' "$1"; }
    for c in phase_a phase_b; do
        full=$(events_from full.txt $c)
        late=$(events_from late.txt $c)
        need=$((full / FLONG)) # the long regions' share of the full run's events
        ok $((full == 0 || late < need)) "thin fork paths ($1): forks from $c written late with its context ($late events, its long regions $need of $full)"
    done
    paths() { awk '$1 == "context" && $3 ~ /^region_step\._omp_fn\.0@/ { $1 = ""; $2 = ""; print }' "$1" | sort -u; }
    paths late.txt > late_paths.txt
    paths full.txt > full_paths.txt
    ok $(($(grep -c . full_paths.txt) != 2 || $(comm -23 late_paths.txt full_paths.txt | grep -c .) != 0)) "thin fork paths ($1): the contexts of a run writing every instance ($(grep -c . late_paths.txt) of $(grep -c . full_paths.txt))"
    cd / && rm -rf "$dir"
}
fork_paths "2 threads" 2
fork_paths "1 thread" 1

# OpenMP parallel regions (tests/par_thin_app: ITER tiny regions on 2 threads,
# every LONG-th of about 2 ms on each thread): per thread the first CHEAP to PROBE
# shares in full (the cost rule: tiny regions, HCATRACE_THIN unset), then only
# the long ones; the master's fork and join only for the instances written;
# the rest counted per thread
PAR="$BUILD/tests/par_thin_app"
[ -x "$TOP/build/tests/par_thin_app" ] && PAR="$TOP/build/tests/par_thin_app" # never sanitized
dir=$(fresh_dir)
cd "$dir" || exit 1
traced_pair "thin parallel" "$PAR"
w=$(written stat.txt main._omp_fn.0)
t=$(thinned stat.txt main._omp_fn.0)
ok $((${w:-0} + ${t:-0} != ALL)) "thin parallel: shares written ($w) + thinned ($t) = every share ($ALL)"
# written: the first CHEAP to PROBE per thread and every long one after them;
# without the cost rule the first 1000 per thread. Past those in full on its
# thread (at most PROBE), every share written lasted 50 us, held a sample or
# held a written instance
# (tests/thin_written.py, share by share). A loaded machine stretches any
# number of tiny shares past 50 us (preempted in them), which a bound on their
# count (was: at most ALL / 10 above the long ones) cannot tell from thinning
# that writes short ones: the check by share can (a tracer writing every share
# past the probe, HCATRACE_THIN=off, fails it with 1800 shares for no reason)
kept=$((2 * (CHEAP + (ITER - CHEAP) / LONG)))
ok $((${w:-0} < kept || ${w:-0} >= 2000)) "thin parallel: the cost rule: the first $CHEAP to $PROBE and the long shares written ($w, at least $kept)"
# (the rule after the probe, apart from the probe's decision checked above:
# when the cost rule took the key for a long one, past its first 1000)
probed=$PROBE
[ "${w:-0}" -ge 2000 ] && probed=1000
"$OTF2_PYTHON" "$TOP/tests/thin_written.py" "$trace" main._omp_fn.0 --probe $probed > why.txt
ok $? "thin parallel: past those in full (at most $probed), each share written lasted 50 us or held a sample"
sed 's/^/# /' why.txt
# at most one fork per instance with a share written (on either thread) or a
# sample on the master (under load the master spins in the join barrier for
# long: samples land there), and fewer than all instances
smp=$(awk '$1 == "sampling" && $2 == 0 { split($3, a, "="); print a[2] }' stat.txt)
set -- $(awk '$1 == "threads" && $2 == 0 { print $4, $6, $8 }' stat.txt) 0 0 0
ok $(($1 != $2 || $1 < kept / 2 || $1 > w + ${smp:-0} || $1 >= ITER || $3 > $1)) "thin parallel: the master's fork/join only for the instances written ($1 forks, $2 joins, $3 team begins, $smp samples)"
grep -q '^location .* balanced yes monotonic yes' stat.txt
ok $? "thin parallel: regions balanced, time monotonic"
"$BUILD/bin/hcafold" -o fold "$trace" > fold.txt 2> fold.err
grep -q "^not written by the tracer (thinned): main._omp_fn.0, $t instances, [0-9.]* s, on 2 locations$" fold.txt
ok $? "thin parallel: hcafold's summary lists the thinned shares ($t)"
# the user's N stays the N: HCATRACE_THIN=1000 writes the first 1000 per thread
rm -rf hcatrace-*
HCATRACE_THIN=1000 LD_PRELOAD="$PRELOAD" "$PAR" $ITER $LONG > n.out 2> n.err
ok $? "thin parallel, HCATRACE_THIN=1000: exit code 0"
"$TRACESTAT" "$(the_trace)" > n.txt
w=$(written n.txt main._omp_fn.0)
kept=$((2 * (1000 + (ITER - 1000) / LONG)))
ok $((${w:-0} < kept)) "thin parallel, HCATRACE_THIN=1000: the first 1000 and the long shares written ($w, at least $kept)"
"$OTF2_PYTHON" "$TOP/tests/thin_written.py" "$(the_trace)" main._omp_fn.0 --probe 1000 > why.txt
ok $? "thin parallel, HCATRACE_THIN=1000: past the first 1000, each share written lasted 50 us or held a sample"
sed 's/^/# /' why.txt
cd / && rm -rf "$dir"

# the cost rule on a loaded machine: the second thread comes 20 ms late to each
# region (par_thin_app's LATE: as if it had waited for a CPU), the shares stay
# tiny. The probe takes the team's longest share, not the master's fork to its
# join (20 ms: the key was taken for a long one and its first 1000 written in
# full; 2 of 21 runs of the case above at load 18-30): the first CHEAP to PROBE per thread
dir=$(fresh_dir)
cd "$dir" || exit 1
LATE_ITER=130
"$PAR" $LATE_ITER 1000000 > plain.out 2> plain.err # the same output, without the wait
LD_PRELOAD="$PRELOAD" "$PAR" $LATE_ITER 1000000 20 > traced.out 2> traced.err
ok $? "thin parallel, a late thread: exit code 0"
check "thin parallel, a late thread: stdout identical" cmp plain.out traced.out
"$TRACESTAT" "$(the_trace)" > stat.txt
w=$(written stat.txt main._omp_fn.0)
t=$(thinned stat.txt main._omp_fn.0)
ok $((${w:-0} + ${t:-0} != 2 * LATE_ITER || ${w:-0} < 2 * CHEAP || ${w:-0} > 2 * PROBE)) \
    "thin parallel, a late thread: the cost rule: the first $CHEAP to $PROBE per thread written ($w, $t thinned)"
cd / && rm -rf "$dir"

# a sample lands in a share kept back: written with its sample inside, whatever
# its length (threshold 1 s); the fork and join around it on the master. At
# one thread, every instance past the first is a kept-back team of one (its
# share written late from the fork's call: hct_openmp.c, fork_stack): each
# share written has its fork and join, and its team begin on the master
sampled_shares() { # LABEL THREADS
    dir=$(fresh_dir)
    cd "$dir" || exit 1
    all=$(($2 * ITER))
    HCATRACE_THIN=1,1s HCATRACE_SAMPLING=1ms OMP_NUM_THREADS=$2 LD_PRELOAD="$PRELOAD" "$PAR" $ITER $LONG > traced.out 2> traced.err
    ok $? "thin parallel, sampled ($1): exit code 0"
    trace=$(the_trace)
    [ -n "$trace" ] || { ls -la; other_stderr traced.err; } | sed 's/^/# /'
    check "thin parallel ($1): samples in kept-back shares: valid and conformant" valid_otf2 "$trace"
    "$TRACESTAT" "$trace" > stat.txt
    w=$(written stat.txt main._omp_fn.0)
    t=$(thinned stat.txt main._omp_fn.0)
    ok $((${w:-0} + ${t:-0} != all || ${w:-0} < 4 || ${w:-0} > all / 10)) "thin parallel ($1): shares holding samples written ($w, thinned $t)"
    s=$(awk '$1 == "region" && $2 == "main._omp_fn.0" { for (i = 3; i < NF; i++) if ($i == "samples") print $(i + 1) }' stat.txt)
    ok $((${s:-0} < ${w:-0} / 2)) "thin parallel ($1): their samples inside them ($s samples in $w shares)"
    # (the master's fork and join are also written for an instance in which a
    # sample landed on the master outside its share: in the barrier, under load)
    set -- "$1" "$2" $(awk '$1 == "threads" && $2 == 0 { print $4, $6, $8 }' stat.txt) 0 0 0
    ok $(($3 != $4 || $5 > $3 || $3 < 1 || ($2 == 1 && $5 != ${w:-0}))) "thin parallel ($1): fork/join written around them ($3 forks, $4 joins, $5 team begins)"
    cd / && rm -rf "$dir"
}
sampled_shares "2 threads" 2
sampled_shares "1 thread" 1

# HCATRACE_FILTER: never written, counted
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_FILTER='tiny, omp crit*' LD_PRELOAD="$PRELOAD" "$APP" $ITER $LONG > traced.out 2> traced.err
trace=$(the_trace)
check "thin: filtered: valid and conformant" valid_otf2 "$trace"
"$TRACESTAT" "$trace" > stat.txt
ok $(($(grep -c '^region tiny \|^region omp critical ' stat.txt) != 0)) "thin: filtered regions not written"
ok $(($(thinned stat.txt tiny) != ALL || $(thinned stat.txt "omp critical") != ALL)) "thin: filtered instances counted"
ok $(($(written stat.txt long) != LONGS)) "thin: other regions written"
cd / && rm -rf "$dir"

# constructs in kept-back shares written late (samples land in them, threshold
# 1 s; examples/omp_phases: barriers and a critical section in each thread's
# share): under their share's context on both threads, as in a run writing
# every instance. A share written late without its own stack (a kept-back
# share keeps none: it is found when written) put them outside the share,
# under the thread's whole stack (4-5 contexts not in the full run).
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_THIN=1,1s HCATRACE_SAMPLING=1ms LD_PRELOAD="$PRELOAD" "$EX/omp_phases" > late.out 2> late.err
ok $? "thin nested: exit code 0"
"$TRACESTAT" "$(the_trace)" > late.txt
rm -rf hcatrace-*
HCATRACE_THIN=off LD_PRELOAD="$PRELOAD" "$EX/omp_phases" > full.out 2> full.err
"$TRACESTAT" "$(the_trace)" > full.txt
constructs() { awk '$1 == "context" && $3 == "omp" { $1 = ""; $2 = ""; print }' "$1" | sort -u; }
constructs late.txt > late_ctx.txt
constructs full.txt > full_ctx.txt
ok $(($(grep -c . late_ctx.txt) < 2 || $(comm -23 late_ctx.txt full_ctx.txt | grep -c .) != 0)) "thin nested: constructs in kept-back shares written with the contexts of a run writing every instance ($(grep -c . late_ctx.txt) of $(grep -c . full_ctx.txt))"
comm -23 late_ctx.txt full_ctx.txt | sed 's/^/# not in full: /' | head -3
cd / && rm -rf "$dir"

# a bad filter: one line, an untraced run, the same output
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_FILTER='omp [crit' LD_PRELOAD="$PRELOAD" "$APP" $ITER $LONG > traced.out 2> traced.err
ok $? "thin: bad filter: exit code 0"
"$APP" $ITER $LONG > plain.out
check "thin: bad filter: stdout identical" cmp plain.out traced.out
ok $(($(grep -c . traced.err) != 1 || $(grep -c '^hcatrace: invalid HCATRACE_FILTER .*untraced' traced.err) != 1)) "thin: bad filter: one hcatrace: line"
ok $(($(ls -d hcatrace-* 2> /dev/null | wc -l) != 0)) "thin: bad filter: no trace"
cd / && rm -rf "$dir"

# a region holding instances written in full (MPI calls inside the marker
# 'iteration' of mpi_phases): written in full again once that is seen, with
# its counter values (one instance per location is written late, without)
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_THIN=5 traced_mpirun 2 "$EX/mpi_phases" -q -n 40 > out 2> err
ok $? "thin: mpi_phases with HCATRACE_THIN=5: exit code 0"
trace=$(the_trace)
check "thin: mpi_phases: valid and conformant" valid_otf2 "$trace"
"$TRACESTAT" "$trace" > stat.txt
ok $(($(written stat.txt iteration) != 80 || $(grep -c '^thinned ' stat.txt) != 0)) "thin: every 'iteration' written ($(written stat.txt iteration))"
# (MPI enters after a short compute burst and leaves before one predicted
# short are written without values by design: docs/configuration.md,
# "Thinning and filtering", hct_mpi_burst.h; every other boundary has them)
awk '$1 == "counters" { for (i = 3; i < NF; i++) { if ($i == "boundaries") b = $(i + 1); if ($i == "with_counters") w = $(i + 1)
                                                   if ($i == "mpi_enters_bare") m = $(i + 1); if ($i == "mpi_leaves_bare") m2 = $(i + 1) }
                        if (b - w - m - m2 > 4) bad = 1 } END { exit bad }' stat.txt
ok $? "thin: region boundaries keep their counter values ($(awk '$1 == "counters" { printf "%s/%s (%s MPI enters, %s leaves bare) ", $12, $10, $(NF - 2), $NF }' stat.txt))"
cd / && rm -rf "$dir"

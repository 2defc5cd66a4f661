# fold_truth.sh: end to end against exact truth (issue 17; issue 10, "only
# physically possible values"). tests/truth_app records its own CPU time
# (perf's task-clock, the counter folded, and CLOCK_THREAD_CPUTIME_ID) and page
# faults every ~0.1 ms and around every sleep (outside the trace), in three
# phases per instance: computing (one CPU), faulting pages with short sleeps
# (part of a CPU), asleep (none). Traced at the default sampling clock (wall)
# every 2 ms, hcafold's fold of its region is measured against that truth
# (tests/truth_fold.py), both averaged over cells of 0.05 of the region (the
# ten page-touching bursts of the second phase repeat every 0.03 of the region,
# which a fold of about 10 samples per instance resolves only in part; the MAE
# over cells of 0.01, the fold's grid, is printed too: 5-18 % task-clock).
# The truth includes the tracer's own time (the program measured itself while
# traced), so the folding is measured on the fold that keeps it in
# (--keep-tool-time): task-clock phases never above one CPU, the cumulative
# task-clock within 2 % of the truth, the task-clock rate MAE within 10 % and
# page faults within 30 % of their mean rates (cumulative 4 %, rate 20 % and
# page faults 40 % on a loaded machine, where the truth got under half a CPU) (measured 2.5-5.5 % and
# 4.2-8.5 %, idle and loaded, docs/benchmarks.md "Sampling clock against
# truth"; at load 2-4 beside other jobs 2.7-4.5 % and 11.5-17.8 %, "Where the
# error sits"; 20.7 % under ASan at load 4 on 2026-11-27: the limit sits
# above that spread, and below the 53-55 % of samples placed by CPU time,
# issue 17), the CPU share within 0.02, and the source bands of
# phase_faults and phase_wait starting within 0.05 of the truth's phase
# changes, or within the changes' spread over the instances where a loaded
# machine moved them more (tests/truth_fold.py --max-band-error: under ASan at
# load 13 a band 0.065 from the median change, spread 0.076 over the
# instances). The default fold (the tracer's time removed) must stay physically
# possible and place its bands as well; its CPU share is the program's without
# the tracer (below the truth by the tracer's share). Against the truth with the
# tracer's time taken out as the trace says it was spent (tests/truth_tool_time.py)
# it meets the kept fold's limits. Samples placed by CPU
# time never see phase_wait (the thread is asleep there), and the former
# hcafold had no CPU share. The summary shows the CPU share; the sampler's
# signals do not cut the program's sleeps short (no nanosleep of the program
# returns EINTR); context switches are counted (16 sleeps per instance); with
# HCATRACE_SAMPLING_CLOCK=cpu the fold warns. No work of the tracer lies
# between the program's last instruction in the region and the leave's time
# (tests/truth_gaps.py: the end marker's gap against the begin marker's).
. "$(dirname "$0")/lib.sh"
APP="$BUILD/tests/truth_app"
[ -x "$APP" ] || APP="$TOP/build/tests/truth_app"
FOLD="$BUILD/bin/hcafold"
dir=$(fresh_dir)
cd "$dir" || exit 1

mkdir wall cpu
(cd wall && HCATRACE_SAMPLING=2ms traced_mpirun 1 "$APP" 200 truth > out 2> err)
ok $? "traced run of truth_app: 200 instances, wall-clock sampling every 2 ms"
trace=$dir/wall/$(cd wall && the_trace)
"$FOLD" --mad 1000 -f json -r truth_iter -o wall/fold "$trace" > wall/summary 2> wall/fold.err
ok $? "hcafold folds the region truth_iter (no instance excluded)"
"$FOLD" --keep-tool-time --mad 1000 -f json -r truth_iter -o wall/kept "$trace" > wall/summary.kept 2> wall/kept.err
ok $? "hcafold --keep-tool-time folds it too"
! grep -q "tracer's own time removed" wall/summary.kept && grep -q '"tool_time_removed":[[:space:]]*false' wall/kept/fold.json
ok $? "--keep-tool-time removes nothing and says so (fold.json tool_time_removed false)"
# --max-cpus 1.05: the compute phase runs at exactly one CPU and folds, on an
# idle machine, 0.4-2.4 % above it (the low end of its 95 % interval, 8 runs
# on 2026-11-25, docs/benchmarks.md)
# The rate MAE grows with the machine's load (11-15 % at a load of 10-19 on
# 2 cores, docs/benchmarks.md): where the truth got under half a CPU (68 %
# near idle, 17-43 % loaded) the limits are those of a loaded machine
share=$(python3 "$TOP/tests/truth_fold.py" wall/kept/fold.json wall/truth.0 --resolution 0.05 |
    sed -n 's/.*CPU share truth \([0-9.]*\) %.*/\1/p' | head -1)
# (and under ASan, whose truth_app runs on 44 % of a CPU: there the cumulative
# task-clock read 2.7 %, the truth's own two clocks 1.3 points apart)
mae=10 pf_mae=30 cum=2 machine="near idle"
if [ "$(echo "${share:-0}" | awk '{ print ($1 < 50) }')" = 1 ]; then
    mae=20 pf_mae=40 cum=4 machine="loaded: the truth on ${share:-?} % of a CPU"
fi
python3 "$TOP/tests/truth_fold.py" wall/kept/fold.json wall/truth.0 --resolution 0.05 --max-cpus 1.05 \
    --max-cum-error $cum --max-mae $mae --max-pf-mae $pf_mae --max-share-error 0.02 --max-band-error 0.05 > wall/report
ok $? "the fold (tracer's time kept) against the truth over 0.05 cells ($machine): task-clock phases at most one CPU (+5 %), cumulative within $cum %, rate MAE within $mae %, page faults within $pf_mae %, CPU share within 0.02, bands within 0.05 or the instances' spread"
sed 's/^/# /' wall/report
python3 "$TOP/tests/truth_fold.py" wall/kept/fold.json wall/truth.0 --resolution 0.01 | sed 's/^/# over 0.01 cells: /'
python3 "$TOP/tests/truth_fold.py" wall/fold/fold.json wall/truth.0 --max-cpus 1.05 --max-band-error 0.05 > wall/report.default
ok $? "the default fold (tracer's time removed): task-clock phases at most one CPU (+5 %), bands within 0.05 or the instances' spread"
sed 's/^/# default: /' wall/report.default
# the default fold against the truth without the tracer's time, taken out of
# each record as the trace says it was spent (tests/truth_tool_time.py;
# tests/e2e/fold_tool_truth.sh checks the placement where the answer is known):
# the limits of the kept fold against the truth as recorded (the 2-rank traces
# of docs/benchmarks.md "A truth without the tracer's time": 2.0-2.4 % task-clock,
# 1.9-4.2 % page faults per group where the default fold read 2.8-4.8 / 4.3-8.9 %
# against the truth as recorded)
"$OTF2_PYTHON" "$TOP/tests/truth_tool_time.py" "$trace" wall/truth.0 --out wall/removed > wall/removed.txt 2>&1 &&
    python3 "$TOP/tests/truth_fold.py" wall/fold/fold.json wall/removed.0 --resolution 0.05 --max-cpus 1.05 \
        --max-cum-error $cum --max-mae $mae --max-pf-mae $pf_mae --max-share-error 0.02 --max-band-error 0.05 \
        > wall/report.removed
ok $? "the default fold against the truth without the tracer's time ($machine): the kept fold's limits ($(cat wall/removed.txt))"
sed 's/^/# default, tool time removed from the truth: /' wall/report.removed
# The tracer's own page faults are not in the region's instances: at most 0.5
# per instance beyond the 480 fresh pages the program touches in each
# (tests/truth_tool_faults.py; measured 480.01-480.02; a tracer that touched a
# fresh page per sample read 488.96) and beyond the record at the region's
# ends (measured -0.2 to 0.0): the default fold's page-fault error against the
# truth as recorded (7-11 % at 1 ms near idle) is the tracer's time in the
# record's time axis, not its faults (docs/benchmarks.md "The page-fault fold's
# error (issue 17, branch faults17)")
"$OTF2_PYTHON" "$TOP/tests/truth_tool_faults.py" "$trace" wall/truth.0 --max-beyond 0.5 \
    --program-faults 480 --max-tracer-faults 0.5 > wall/report.tool
ok $? "no page faults of the tracer in the region's instances ($(sed -n 's/.*page faults trace \([0-9.]*\),.*/\1/p' wall/report.tool | head -1) per instance, the program's 480)"
# the tracer's work at the region's two ends, against the program's own times:
# the end marker wrote the thread's pending samples before the leave's time
# (3-7 times the begin's gap, 3.8-8.1 us against 1.0-1.4 us; 6-17 times under
# ASan; since the drain follows the leave's time, 0.9-1.7 times: at most 2.5;
# docs/benchmarks.md "The drain out of the region"). Every instance in full
# (HCATRACE_THIN=off): under ASan the cost rule may keep truth_iter's enters
# back, and a kept-back instance's enter is written late, before its leave's
# time (hct_thin.c), another matter
mkdir gaps
(cd gaps && HCATRACE_THIN=off HCATRACE_SAMPLING=2ms traced_mpirun 1 "$APP" 100 truth > out 2> err) &&
    "$OTF2_PYTHON" "$TOP/tests/truth_gaps.py" "$dir/gaps/$(cd gaps && the_trace)" gaps/truth.0 --max-end-ratio 2.5 > gaps/report
ok $? "no tracer's work inside the region's end: the gap from the program's last record to the leave at most 2.5 times that from the enter to its first ($(head -1 gaps/report))"
grep -q "CPU share [0-9.]* %" wall/summary
ok $? "the summary shows the region's CPU share"

# 16 sleeps per instance, of 0.2 and 0.5 ms, with a sampling signal every 2 ms
grep -q ", 0 sleeps interrupted" wall/out
ok $? "the sampler's signals cut none of the program's sleeps short ($(sed -n 's/.*, \([0-9]*\) sleeps interrupted/\1/p' wall/out) did end early)"
grep -A3 '"zero_counters"' wall/fold/fold.json | grep -q context-switches
cs_zero=$?
if grep -q '"context-switches"' wall/fold/fold.json || [ "$cs_zero" -eq 0 ]; then
    [ "$cs_zero" -ne 0 ]
    ok $? "context-switches counts the program's 16 sleeps per instance (not always 0)"
else
    echo "ok $((n = n + 1)) # SKIP context-switches not recorded here (kernel counting not allowed)"
fi

(cd cpu && HCATRACE_SAMPLING_CLOCK=cpu HCATRACE_SAMPLING=2ms traced_mpirun 1 "$APP" 60 truth > out 2> err)
ok $? "traced run of truth_app with HCATRACE_SAMPLING_CLOCK=cpu"
"$FOLD" -q --mad 1000 -f json -r truth_iter -o cpu/fold "$dir/cpu/$(cd cpu && the_trace)" > /dev/null 2>&1 &&
    grep -q '"warning":[[:space:]]*"[^"]*samples placed by CPU time' cpu/fold/fold.json
ok $? "a fold of samples placed by CPU time on a thread with part of a CPU warns"

echo "1..$n"
cd / && rm -rf "$dir"

# thin_counters.sh: counter values of thinned instances. tests/thin_counters_app
# runs a user region "spin" (N busy loops of US us of the thread's CPU time)
# whose first instance is begun at one call site and the others at another;
# with HCATRACE_THIN=1,1s every instance after the first is kept back and
# written only if a sample lands in it. A kept-back enter reads the counters
# when the thread's next sample may fall within the key's window
# (instrument/hct_thin_counters.c), so the instances written for their
# samples carry counter values at both ends and the second site's region,
# folded only from them, has a task-clock curve, true at both ends (each
# instance is US us of the thread's CPU time). Before, it had no counter
# curve at all. For the wall-clock sampling source
# (the default) and the CPU-time one.
. "$(dirname "$0")/lib.sh"

APP="$BUILD/tests/thin_counters_app"
[ -x "$TOP/build/tests/thin_counters_app" ] && APP="$TOP/build/tests/thin_counters_app" # never sanitized
N=2000
US=200

# written instances of region $2 (tracestat's "region" line) and those counted as thinned
written() { awk -v r="$2" '$1 == "region" && $2 == r { print $4 }' "$1" | head -1; }
thinned() { awk -v r="$2" '$1 == "thinned" && $2 == r { print $4 }' "$1" | head -1; }

for clock in wall cpu; do
    dir=$(fresh_dir)
    cd "$dir" || exit 1
    "$APP" $N $US > plain.out 2> plain.err
    HCATRACE_SAMPLING_CLOCK=$clock HCATRACE_THIN=1,1s HCATRACE_SAMPLING=5ms LD_PRELOAD="$PRELOAD" "$APP" $N $US \
        > traced.out 2> traced.err
    ok $? "$clock: exit code 0"
    check "$clock: stdout identical" cmp plain.out traced.out
    trace=$(the_trace)
    check "$clock: the trace is valid and conformant" valid_otf2 "$trace"
    "$TRACESTAT" "$trace" > stat.txt
    w=$(written stat.txt spin)
    t=$(thinned stat.txt spin)
    ok $((${w:-0} + ${t:-0} != N + 1 || ${w:-0} < 20 || ${w:-0} > N / 4)) \
        "$clock: 'spin' thinned, the instances holding a sample written ($w written, $t thinned)"
    # every counter Metric right before a boundary or sample at its time; most
    # written boundaries with counter values (only an instance whose sample
    # came later than its key's window after its enter has none)
    set -- $(awk '$1 == "counters" && $2 == 0 { for (i = 3; i < NF; i++) { if ($i == "boundaries") b = $(i + 1); if ($i == "with_counters") c = $(i + 1); if ($i == "placement") p = $(i + 1) } print b + 0, c + 0, p }' stat.txt) 0 0 no
    ok $(($1 < 2 * ${w:-0} || $2 * 10 < $1 * 8)) "$clock: the written instances' boundaries carry counter values ($2 of $1)"
    ok $(($([ "$3" = ok ] && echo 0 || echo 1))) "$clock: counter values placed at their boundaries"
    "$BUILD/bin/hcafold" -o fold "$trace" > fold.txt 2> fold.err
    ok $? "$clock: hcafold folds it"
    # the second call site's region (all its duration groups): a task-clock
    # curve from the instances written for their samples, true at its ends:
    # each instance holds US us of the thread's CPU time, less the tracer's
    # part of it (a sample's handler, tens of us) removed by hcafold
    "$OTF2_PYTHON" - fold/fold.json "$US" > check.txt 2>&1 << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
us = float(sys.argv[2]) * 1e3
regions = [r for r in d["regions"] if r["name"].startswith("spin@")]
n = with_values = 0
total = tool = busy = 0.0
for r in regions:
    tc = [c for c in r["counters"] if c["name"] == "task-clock"]
    used = r["instances"]["used"]
    n += used
    if tc:
        with_values += tc[0]["instances"]
        total += tc[0]["mean_total"] * tc[0]["instances"]
        busy += tc[0]["mean_rate"] * tc[0]["instances"]
        tool += r["tool_time_s"] * 1e9 * tc[0]["instances"] / max(used, 1)
# (an instance whose total went below 0 once the tracer's time was removed,
# as under heavy load, is not counted: points.c)
print(("ok" if with_values >= 20 and with_values * 2 >= n else "not ok")
      + " region spin (%d groups): a task-clock curve from its thinned instances (%d of %d instances with values)"
      % (len(regions), with_values, n))
mean = total / with_values if with_values else 0
removed = tool / with_values if with_values else 0
print(("ok" if with_values and 0.6 * us <= mean <= 1.1 * us else "not ok")
      + " its task-clock per instance: %.1f us (%.1f us of the tracer's time removed) for %.0f us of CPU time"
      % (mean / 1e3, removed / 1e3, us / 1e3)
      + " (rate %.2f CPUs)" % (busy / with_values / 1e9 if with_values else 0))
PY
    checks_as_tap check.txt "$clock: "
    ! grep -q 'no counter folded' fold.txt
    ok $? "$clock: the summary does not say its counters were not folded"
    cd / && rm -rf "$dir"
done

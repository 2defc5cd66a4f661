# conformance.sh: end-to-end tests of the OTF2 conformance checker
# (tests/otf2_conformance.py, run on every trace the tests make by valid_otf2):
# the synthesizer's traces conform; the representation written before issue 10
# (hcasynth --nonconformant: region contexts apart from the samples', unwind
# distance 2, SYNCHRONOUS_STRICT classes) is caught in every violated class with
# counts and a first example; a hand-made trace with a region left by a sample,
# a leave off the current path and an unwind distance beyond the root is caught;
# a trace that cannot be read exits 2.
. "$(dirname "$0")/lib.sh"
SYNTH="$BUILD/tests/hcasynth"
CHECK="$TOP/tests/otf2_conformance.py"
COUNTERS="--counter instructions:0-0.5=1e9,0.5-1=2e9 --counter cycles:0-1=2e9 --counter page-faults:0-1=1000"
SETS="instructions,cycles;instructions,page-faults"

dir=$(fresh_dir)
cd "$dir" || exit 1

# class_count OUTPUT CLASS: the violation count the checker printed for CLASS
class_count() { sed -n "s/^otf2_conformance: $2: \([0-9]*\) violation.*/\1/p" "$1"; }

for kind in burst user openmp; do
    # shellcheck disable=SC2086
    "$SYNTH" --out "$kind" --kind "$kind" --ranks 2 --threads 2 --instances 30 $COUNTERS --sets "$SETS" \
        --functions "f:0-0.5,g:0.5-1" --lost-samples 2 > /dev/null
    "$OTF2_PYTHON" "$CHECK" "$kind/traces.otf2" > "$kind.out" 2>&1
    ok $? "$kind: the synthesizer's trace conforms"
done

for kind in burst user; do
    # shellcheck disable=SC2086
    "$SYNTH" --out "old-$kind" --kind "$kind" --instances 30 $COUNTERS --sets "$SETS" \
        --functions "f:0-0.5,g:0.5-1" --lost-samples 2 --nonconformant > /dev/null
    check "old-$kind: otf2-print -Werror accepts the old representation" otf2-print --silent -Werror \
        "old-$kind/traces.otf2"
    "$OTF2_PYTHON" "$CHECK" "old-$kind/traces.otf2" > "old-$kind.out" 2>&1
    ok $(($? != 1)) "old-$kind: the checker exits 1"
    for class in "unwind CallingContextSample" metric-mode; do
        count=$(class_count "old-$kind.out" "$class")
        ok $((${count:-0} == 0)) "old-$kind: '$class' violations counted (${count:-none})"
    done
    ok "$(grep -c '^otf2_conformance: .*; first: location [0-9]* (.*): ' "old-$kind.out" | awk '{ print ($1 == 0) }')" \
        "old-$kind: each class with a first example naming its location"
done
for class in "unwind CallingContextEnter" open-region balance; do
    count=$(class_count old-user.out "$class")
    ok $((${count:-0} == 0)) "old-user: '$class' violations counted (${count:-none})"
done
ok "$(grep -c '^otf2_conformance: open-region' old-burst.out)" "old-burst: no open region left by a sample (MPI samples reference the call's own context)"

# ---- a hand-made trace: each event violates one rule -----------------------------
"$OTF2_PYTHON" - <<'EOF' > /dev/null 2>&1
import otf2
from otf2.events import CallingContextEnter, CallingContextLeave, CallingContextSample
with otf2.writer.open("hand", timer_resolution=10**9) as trace:
    d = trace.definitions
    group = d.location_group("process", system_tree_parent=d.system_tree_node("node"))
    main, send, other = d.region("main"), d.region("MPI_Send"), d.region("other")
    c_main = d.calling_context(main, None, None)
    c_other = d.calling_context(other, None, None)
    c_send = d.calling_context(send, None, c_main)
    timer = d.interrupt_generator("timer", period=1000)
    w = trace.event_writer("master thread", group=group)
    w(CallingContextSample(100, c_main, 2, timer))  # conforms: main is new
    w(CallingContextEnter(200, c_send, 2))          # conforms
    w(CallingContextSample(250, c_other, 2, timer))  # leaves the open MPI_Send's parent
    w(CallingContextLeave(300, c_send))             # MPI_Send is not on the current path
    w(CallingContextSample(400, c_main, 5, timer))  # beyond the root (depth 1)
EOF
"$OTF2_PYTHON" "$CHECK" hand/traces.otf2 > hand.out 2>&1
ok $(($? != 1)) "hand-made: the checker exits 1"
for class in open-region balance "unwind CallingContextSample"; do
    count=$(class_count hand.out "$class")
    ok $((${count:-0} != 1)) "hand-made: one '$class' violation (${count:-none})"
done
grep -q "unwindDistance 5, depth 1.*(beyond the root)" hand.out
ok $? "hand-made: the example says what is wrong"

# ---- unreadable ------------------------------------------------------------------
echo "not a trace" > junk.otf2
"$OTF2_PYTHON" "$CHECK" junk.otf2 > junk.out 2>&1
ok $(($? != 2)) "an unreadable trace: exit 2"

cd / && rm -rf "$dir"

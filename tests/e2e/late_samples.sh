# late_samples.sh: wall-clock samples whose signal was held up while the
# thread ran (the program blocks SIGPROF around most of its work, as a code's
# own critical sections can): no sample claims more CPU time since the
# previous event of its thread than time passed (tests/sample_cpu_bound.py;
# stamped at the expiries while their values were read at the unblocking, 40
# of 403 samples did, by up to 7.9 ms), every instance keeps a sample, and the
# program's output and exit code are unchanged.
. "$(dirname "$0")/lib.sh"
APP="$BUILD/tests/masked_app"
[ -x "$APP" ] || APP="$TOP/build/tests/masked_app"
N=40
dir=$(fresh_dir)
cd "$dir" || exit 1
"$APP" $N 8 > plain.out 2> plain.err
plain_rc=$?
HCATRACE_SAMPLING=1ms LD_PRELOAD="$PRELOAD" "$APP" $N 8 > traced.out 2> traced.err
traced_rc=$?
ok $((plain_rc != 0 || traced_rc != 0)) "masked: both runs succeed ($plain_rc, $traced_rc)"
check "masked: stdout identical with and without the tracer" cmp plain.out traced.out
ok "$(other_stderr traced.err | grep -c .)" "masked: nothing on stderr but the no-PMU line"
trace=$(the_trace)
check "masked: otf2-print --silent -Werror accepts the trace" valid_otf2 "$trace"
"$OTF2_PYTHON" "$TOP/tests/sample_cpu_bound.py" "$trace" --region masked_iter > bound.txt 2>&1
ok $? "masked: no sample claims more CPU time than time passed ($(cat bound.txt))"
in_region=$(sed -n 's/^samples [0-9]* (\([0-9]*\) in masked_iter).*/\1/p' bound.txt)
ok $((${in_region:-0} < N)) "masked: at least one sample per instance (${in_region:-none} in $N)"
cd / && rm -rf "$dir"

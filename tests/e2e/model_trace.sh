# model_trace.sh: HCATRACE_MODEL in the tracer. A model's events are counted in
# sets that fit the PMU and the trace records the model (archive properties
# HCATRACE::MODEL, MODEL_FILE, MODEL_TEXT, MODEL_EVENTS, MODEL_MISSING, PMU):
# the generic model (on a machine without a CPU PMU only task-clock counts, the
# rest is listed as missing in one line), a software-only model found through
# HCATRACE_MODEL_PATH with HCATRACE_COUNTERS' sets after its own (sets rotate),
# HCATRACE_MODEL=auto naming its choice, and bad configurations (unknown name,
# malformed file, counters off) in one line with output and exit code unchanged.
. "$(dirname "$0")/lib.sh"
RUN="$EX/mpi_phases -q -n 20 -e 3"
SERIAL="$EX/omp_free_serial"
MODELS="$TOP/models"
TESTMODELS="$TOP/tests/models"

prop() { "$TRACESTAT" -p "$1" "$2"; } # NAME ARCHIVE: one property, verbatim

baseline=$(fresh_dir)
cd "$baseline" || exit 1
plain_mpirun 2 $RUN > plain.out 2> /dev/null
"$SERIAL" 5 > serial.out 2> /dev/null

# ---- 1. the generic model, two MPI ranks -------------------------------------------
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_MODEL=generic traced_mpirun 2 $RUN > out 2> err
rc=$?
ok $((rc != 3)) "generic: exit code 3 kept ($rc)"
check "generic: stdout unchanged" cmp "$baseline/plain.out" out
trace=$(the_trace)
check "generic: otf2-print --silent -Werror accepts the trace" valid_otf2 "$trace"
"$TRACESTAT" "$trace" > stat.txt
[ "$(prop HCATRACE::MODEL "$trace")" = generic ]
ok $? "generic: property HCATRACE::MODEL is generic"
[ "$(prop HCATRACE::MODEL_FILE "$trace")" = "$(cd "$MODELS" && pwd -P)/generic.model" ]
ok $? "generic: property HCATRACE::MODEL_FILE is models/generic.model"
prop HCATRACE::MODEL_TEXT "$trace" > text
check "generic: property HCATRACE::MODEL_TEXT is the model file, byte for byte" cmp text "$MODELS/generic.model"
events=$(prop HCATRACE::MODEL_EVENTS "$trace")
missing=$(prop HCATRACE::MODEL_MISSING "$trace")
pmu=$(prop HCATRACE::PMU "$trace")
case ";$events;" in *";TCLK=task-clock;"*) r=0 ;; *) r=1 ;; esac
ok $r "generic: MODEL_EVENTS maps TCLK to the member task-clock ($events)"
if grep -q "$NOPMU_LINE" err; then # no CPU PMU, whether or not libpfm4 names one ($pmu)
    case ";$missing;" in *";CYC=no CPU PMU;"*) r=0 ;; *) r=1 ;; esac
    case ";$missing;" in *";INST=no CPU PMU;"*) ;; *) r=1 ;; esac
    ok $r "generic: MODEL_MISSING lists CYC and INST: no CPU PMU ($missing)"
    [ "$events" = "TCLK=task-clock" ]
    ok $? "generic: without a CPU PMU only TCLK is counted"
    ok $(($(grep -c "$NOPMU_LINE" err) != 1)) "generic: the no-PMU line is said once"
    line="hcatrace: model generic: 6 of 7 events cannot be counted here (no CPU PMU): CYC, INST, BRM, CM, FES, BES; counting TCLK"
    grep -qxF "$line" err
    ok $? "generic: one line names the events not counted and what is counted"
    ok $(($(other_stderr err | grep -c '^hcatrace:') != 1)) "generic: no other hcatrace line"
    grep -q '^metricclass 0 counters task-clock$' stat.txt
    ok $? "generic: the model's set is task-clock alone"
else
    case ";$events;" in *";CYC=cycles;"*) r=0 ;; *) r=1 ;; esac
    case ";$events;" in *";INST=instructions;"*) ;; *) r=1 ;; esac
    ok $r "generic: with a CPU PMU ($pmu) CYC and INST are counted as cycles and instructions"
fi
ok "$(grep '^counters ' stat.txt | grep -vc 'monotonic yes .*placement ok')" "generic: counters never decrease, each with its event"
cd / && rm -rf "$dir"

# ---- 2. a software-only model by name through HCATRACE_MODEL_PATH, sets rotating ----
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_MODEL_PATH="$dir/none:$TESTMODELS" HCATRACE_MODEL=software HCATRACE_COUNTERS="task-clock,major-faults" \
    HCATRACE_COUNTERS_ROTATE=50ms traced_mpirun 2 "$EX/mpi_phases" -q -n 40 > out 2> err
ok $? "software: traced run succeeds"
ok "$(grep -c '^hcatrace:' err)" "software: nothing on stderr (every event counted, no hardware counter asked for)"
trace=$(the_trace)
check "software: otf2-print --silent -Werror accepts the trace" valid_otf2 "$trace"
"$TRACESTAT" "$trace" > stat.txt
[ "$(prop HCATRACE::MODEL_FILE "$trace")" = "$(cd "$TESTMODELS" && pwd -P)/software.model" ]
ok $? "software: found through HCATRACE_MODEL_PATH"
[ "$(prop HCATRACE::MODEL_EVENTS "$trace")" = \
    "TCLK=task-clock;PF=page-faults;CS=context-switches;MINF=minor-faults;MIGR=cpu-migrations" ]
ok $? "software: MODEL_EVENTS maps all five events to their members"
prop HCATRACE::MODEL_MISSING "$trace" > /dev/null
ok $((! $?)) "software: no MODEL_MISSING property: nothing is missing"
grep -q '^metricclass 0 counters task-clock,page-faults,context-switches,minor-faults,cpu-migrations$' stat.txt
ok $? "software: the model's events are the first set"
grep -q '^metricclass 1 counters task-clock,major-faults$' stat.txt
ok $? "software: HCATRACE_COUNTERS' set comes after the model's"
ok "$(grep '^counters ' stat.txt | grep -vc ' classes 2 monotonic yes .*placement ok')" \
    "software: every rank rotated through both sets; values never decrease"
nloc=$(grep -c '^counters ' stat.txt)
for m in task-clock page-faults context-switches minor-faults cpu-migrations; do
    have=$(awk -v m=$m '$1 == "counter" && $3 == m && $NF > 0' stat.txt | wc -l)
    ok $((have != nloc || nloc < 2)) "software: $m recorded on every rank ($have of $nloc)"
done
cd / && rm -rf "$dir"

# ---- 2b. many sets (as a large model has): one set open per thread at a time -------
dir=$(fresh_dir)
cd "$dir" || exit 1
S6="task-clock,page-faults,minor-faults,context-switches,cpu-migrations,major-faults"
base=$(OMP_NUM_THREADS=4 "$BUILD/tests/fd_app" | awk '{ print $2 }')
OMP_NUM_THREADS=4 HCATRACE_DIR=many HCATRACE_COUNTERS="$S6;$S6,alignment-faults;$S6,emulation-faults;$S6,cpu-clock" \
    HCATRACE_COUNTERS_ROTATE=2 LD_PRELOAD="$PRELOAD" "$BUILD/tests/fd_app" > out 2> err
ok $? "many sets: traced OpenMP run succeeds"
traced=$(awk '{ print $2 }' out)
# 4 threads x 27 events if every set stayed open; one set (at most 7) per thread, plus the trace's own files
extra=$((traced - base))
ok $((extra > 4 * 7 + 4 * 2 + 8)) "many sets: the tracer holds one set's descriptors per thread ($extra more open than untraced, of 4 x 27 events)"
"$TRACESTAT" many/traces.otf2 > stat.txt
ok "$(grep '^counters ' stat.txt | grep -vc ' classes 4 monotonic yes')" \
    "many sets: every thread still rotated through all 4 sets; values never decrease"
cd / && rm -rf "$dir"

# ---- 3. auto: the model for this CPU, or generic, said in one line ----------------
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_MODEL=auto LD_PRELOAD="$PRELOAD" "$SERIAL" 5 > out 2> err
ok $(($? != 5)) "auto: exit code kept"
check "auto: stdout unchanged" cmp "$baseline/serial.out" out
trace=$(the_trace)
chosen=$(prop HCATRACE::MODEL "$trace")
pmu=$(prop HCATRACE::PMU "$trace")
said=$(grep -c '^hcatrace: model [^ ]* \(for PMU [^ ]* (HCATRACE_MODEL=auto)\|(HCATRACE_MODEL=auto: .*)\)$' err)
grep -q "^hcatrace: model $chosen \(for PMU $pmu (HCATRACE_MODEL=auto)\|(HCATRACE_MODEL=auto: .*)\)$" err
ok $(($? != 0 || said != 1)) "auto: one line says which model it chose ($chosen, PMU $pmu)"
if [ "$pmu" = none ]; then
    grep -qxF "hcatrace: model generic (HCATRACE_MODEL=auto: libpfm4 detects no core PMU here)" err
    ok $? "auto: no core PMU known here: generic, and why"
fi
cd / && rm -rf "$dir"

# ---- 4. an unknown model name: the closest one named, the default counters ----------
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_MODEL=generik traced_mpirun 2 $RUN > out 2> err
rc=$?
ok $((rc != 3)) "unknown model: exit code 3 kept ($rc)"
check "unknown model: stdout unchanged" cmp "$baseline/plain.out" out
lines=$(other_stderr err | grep -c '^hcatrace:')
grep -q "^hcatrace: no model 'generik' (closest: generic) in .*; using the default counters$" err
ok $(($? != 0 || lines != 1)) "unknown model: one line naming the closest model"
[ "$lines" -eq 1 ] || sed 's/^/#   /' err
trace=$(the_trace)
check "unknown model: traced" valid_otf2 "$trace"
prop HCATRACE::MODEL "$trace" > /dev/null
ok $((! $?)) "unknown model: no model recorded"
if [ "$(prop HCATRACE::PMU "$trace")" = none ]; then
    "$TRACESTAT" "$trace" | grep -q '^metricclass 0 counters task-clock,page-faults,context-switches$'
    ok $? "unknown model: the default counters"
fi
cd / && rm -rf "$dir"

# ---- 5. a malformed model file: file:line:column in one line, the defaults ----------
dir=$(fresh_dir)
cd "$dir" || exit 1
printf 'model bad\nmatch any\nevent A = task-clock\nnode n = A + AA\nplot p lines n per 1\n' > bad.model
HCATRACE_MODEL="$dir/bad.model" LD_PRELOAD="$PRELOAD" "$SERIAL" 5 > out 2> err
ok $(($? != 5)) "malformed model: exit code kept"
check "malformed model: stdout unchanged" cmp "$baseline/serial.out" out
lines=$(other_stderr err | grep -c '^hcatrace:')
grep -qxF "hcatrace: $dir/bad.model:4:14: unknown name 'AA' (did you mean 'A'?); using the default counters" err
ok $(($? != 0 || lines != 1)) "malformed model: one line with file:line:column and the message"
[ "$lines" -eq 1 ] || sed 's/^/#   /' err
check "malformed model: traced with the defaults" valid_otf2 "$(the_trace)"
cd / && rm -rf "$dir"

# ---- 6. counters off: the model is not loaded, said once ------------------------------
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_MODEL=generic HCATRACE_COUNTERS=off LD_PRELOAD="$PRELOAD" "$SERIAL" 5 > out 2> err
ok $(($? != 5)) "counters off: exit code kept"
grep -qxF "hcatrace: HCATRACE_MODEL=generic ignored: HCATRACE_COUNTERS is off" err
ok $(($? != 0 || $(grep -c . err) != 1)) "counters off: one line, nothing else"
ok "$("$TRACESTAT" "$(the_trace)" | grep -c '^metricclass [0-9]* counters')" "counters off: no counters recorded"
cd / && rm -rf "$dir"
rm -rf "$baseline"

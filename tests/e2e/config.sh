# config.sh: bad configuration gives one clear "hcatrace:" line on stderr and the
# application runs to its normal end with its normal exit code and output,
# untraced or with defaults: unknown values and names, unwritable and existing
# directories, a full disk, and the switch that turns tracing off.
. "$(dirname "$0")/lib.sh"
RUN="$EX/mpi_phases -q -n 5 -s 2000 -e 4"

expect_one_line() { # file pattern description (mpirun's own banner and the no-PMU line aside)
    lines=$(other_stderr "$1" | grep -c '^hcatrace:')
    grep -q "$2" "$1"
    found=$?
    [ "$lines" -eq 1 ] && [ $found -eq 0 ]
    ok $? "$3: exactly one hcatrace line on stderr, matching '$2'"
    [ "$lines" -eq 1 ] || sed 's/^/#   /' "$1"
}

baseline=$(fresh_dir)
cd "$baseline" || exit 1
plain_mpirun 2 $RUN > plain.out 2>/dev/null

# 1. unknown value: default used, trace written
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_VERBOSE=banana traced_mpirun 2 $RUN > out 2> err
rc=$?
ok $((rc != 4)) "unknown value: exit code 4 kept ($rc)"
check "unknown value: stdout unchanged" cmp "$baseline/plain.out" out
expect_one_line err "^hcatrace: invalid value 'banana' for HCATRACE_VERBOSE; using the default$" "unknown value"
trace=$(the_trace)
check "unknown value: traced with the defaults" valid_otf2 "$trace"
cd / && rm -rf "$dir"

# 2. unknown variable name: named, with the closest known name
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_DIRR=x traced_mpirun 2 $RUN > out 2> err
rc=$?
ok $((rc != 4)) "unknown variable: exit code kept ($rc)"
expect_one_line err "^hcatrace: unknown variable HCATRACE_DIRR (did you mean HCATRACE_DIR?); ignored$" "unknown variable"
check "unknown variable: traced" valid_otf2 "$(the_trace)"
cd / && rm -rf "$dir"

# 3. unwritable directory: untraced
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_DIR=/proc/hcatrace-cannot-exist traced_mpirun 2 $RUN > out 2> err
rc=$?
ok $((rc != 4)) "unwritable directory: exit code kept ($rc)"
check "unwritable directory: stdout unchanged" cmp "$baseline/plain.out" out
expect_one_line err "^hcatrace: cannot create /proc/hcatrace-cannot-exist: .*; running untraced$" "unwritable directory"
ok "$(ls -d hcatrace-* 2>/dev/null | wc -l)" "unwritable directory: no trace anywhere else"
cd / && rm -rf "$dir"

# 4. existing directory: never overwritten, the trace goes to a fresh name (said)
dir=$(fresh_dir)
cd "$dir" || exit 1
mkdir keep && echo precious > keep/file
HCATRACE_DIR=keep traced_mpirun 2 $RUN > out 2> err
rc=$?
ok $((rc != 4)) "existing directory: exit code kept ($rc)"
expect_one_line err "^hcatrace: keep already exists; writing the trace to keep.1 instead$" "existing directory"
[ "$(ls keep)" = file ] && [ "$(cat keep/file)" = precious ]
ok $? "existing directory: its content is untouched"
check "existing directory: traced into keep.1" valid_otf2 keep.1/traces.otf2
cd / && rm -rf "$dir"

# 4b. umask 000: the experiment directory and traces/ are 0755 all the same
#     (nobody else can plant a symbolic link where OTF2 opens files by path)
dir=$(fresh_dir)
cd "$dir" || exit 1
(umask 000 && traced_mpirun 2 $RUN > out 2> err)
modes=$(stat -c %a hcatrace-*/ hcatrace-*/traces | tr '\n' ' ')
[ "$modes" = "755 755 " ]
ok $? "umask 000: directories 0755 ($modes)"
check "umask 000: traced" valid_otf2 "$(the_trace)"
cd / && rm -rf "$dir"

# 4c. counters none of which can be counted: the software defaults, said in one line
#     (besides the one per unknown counter)
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_COUNTERS=FLOPS_DP traced_mpirun 2 $RUN > out 2> err
ok $(($? != 4)) "HCATRACE_COUNTERS=FLOPS_DP: exit code kept"
grep -q "^hcatrace: no counter of HCATRACE_COUNTERS='FLOPS_DP' can be counted here; using the default counters$" err
ok $? "HCATRACE_COUNTERS=FLOPS_DP: says the defaults are used"
"$TRACESTAT" "$(the_trace)" > stat.txt 2>&1
grep -q '^metricclass 0 counters task-clock,page-faults,context-switches$' stat.txt
ok $? "HCATRACE_COUNTERS=FLOPS_DP: the software counters recorded"
cd / && rm -rf "$dir"

# 4d. a sampling period without its unit above 100 (ms): refused, not one second
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_SAMPLING=1000 traced_mpirun 2 $RUN > out 2> err
ok $(($? != 4)) "HCATRACE_SAMPLING=1000: exit code kept"
expect_one_line err "^hcatrace: invalid value '1000' for HCATRACE_SAMPLING; using the default$" "HCATRACE_SAMPLING=1000"
cd / && rm -rf "$dir"

# 5. a chosen directory that does not exist yet, with missing parents
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_DIR=runs/first traced_mpirun 2 $RUN > out 2> err
ok $(($? != 4)) "HCATRACE_DIR=runs/first: exit code kept"
check "HCATRACE_DIR=runs/first: trace there" valid_otf2 runs/first/traces.otf2
cd / && rm -rf "$dir"

# 6. tracing switched off
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_ENABLE=0 traced_mpirun 2 $RUN > out 2> err
ok $(($? != 4)) "HCATRACE_ENABLE=0: exit code kept"
ok "$(grep -c '^hcatrace' err)" "HCATRACE_ENABLE=0: silent"
ok "$(ls -d hcatrace-* 2>/dev/null | wc -l)" "HCATRACE_ENABLE=0: no trace"
cd / && rm -rf "$dir"

# 7. full disk: a 64 KiB file system (tmpfs when we may mount). Where mounting
#    is not allowed, a file-size limit fails the writes the same way (EFBIG
#    instead of ENOSPC); mpirun resets the ignored SIGXFSZ that this needs, so
#    that case runs a serial program with many regions instead.
dir=$(fresh_dir)
cd "$dir" || exit 1
mkdir small
if mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
    how=tmpfs
    HCATRACE_DIR=small/trace traced_mpirun 2 $EX/mpi_phases -q -n 400 -s 100 -e 4 > out 2> err
    rc=$?
    umount small
    plain_mpirun 2 $EX/mpi_phases -q -n 400 -s 100 > full.out 2>/dev/null
    want=4
else
    how="ulimit -f"
    (trap '' XFSZ; ulimit -f 64; HCATRACE_DIR=small/trace LD_PRELOAD="$PRELOAD" "$BUILD/tests/markers_app" 20000 > out 2> err)
    rc=$?
    "$BUILD/tests/markers_app" 20000 > full.out
    want=0
fi
ok $((rc != want)) "full disk ($how): exit code kept ($rc)"
check "full disk ($how): stdout unchanged" cmp full.out out
expect_one_line err "^hcatrace: writing the trace in small/trace failed: .*; the trace is incomplete$" "full disk ($how)"
cd / && rm -rf "$dir" "$baseline"

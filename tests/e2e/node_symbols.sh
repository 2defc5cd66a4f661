# node_symbols.sh: the ranks of a node share the symbolization of their frames
# (instrument/hct_node_symbols.c): of 4 ranks of the C example on this node,
# one opens libdw (the node's owner) and the three others read or ask it for
# every answer (HCATRACE_VERBOSE=2's per-rank line); the trace's definitions
# are those of a run with the sharing off (HCATRACE_NODE_SYMBOLS=0, every rank
# with its own libdw) and with 1 rank nothing is shared; a program around each
# rank (GNU time) never owns the node; the program's output is unchanged and
# no shared file is left in /dev/shm.
. "$(dirname "$0")/lib.sh"
dir=$(fresh_dir)
cd "$dir" || exit 1
marker="$dir/marker"
: > "$marker"
ARGS="-q -n 23 -s 20000"

plain_mpirun 4 "$EX/mpi_phases" $ARGS > plain.out 2> plain.err
LD_PRELOAD="$PRELOAD" HCATRACE_VERBOSE=2 HCATRACE_DIR="$dir/shared" "$MPIRUN" $MPIRUN_FLAGS -np 4 \
    "$EX/mpi_phases" $ARGS > shared.out 2> shared.err
ok $? "4 ranks shared: the run succeeds"
check "4 ranks shared: stdout as untraced" cmp plain.out shared.out
ok $(($(grep -c 'frames symbolized.*libdw opened' shared.err) != 1)) "4 ranks shared: one rank opened libdw"
ok $(($(grep -c 'frames symbolized by the node.s owner; libdw not opened' shared.err) != 3)) \
    "4 ranks shared: three ranks did not"
# the three had answers from the node: read from its table or asked of its owner
got=$(sed -n 's/.*libdw not opened; \([0-9]*\) answers read.*, \([0-9]*\) asked.*/\1 \2/p' shared.err |
    awk '$1 + $2 > 0 { n++ } END { print n + 0 }')
ok $((got != 3)) "4 ranks shared: each of the three had its answers from the node ($got)"
check "4 ranks shared: otf2-print --silent -Werror accepts the trace" valid_otf2 "$dir/shared/traces.otf2"
ok "$(find /dev/shm -maxdepth 1 -name "hcatrace-$(id -u)-*" -newer "$marker" 2>/dev/null | grep -c .)" \
    "no shared file left in /dev/shm"

# a program mpirun starts around each rank (GNU time here), with the tracer
# preloaded in it too, attaches first but must not own the node: it never
# answers for the ranks' files, and the ranks would each open libdw (every
# rank did with 8d1c5c6's library)
if [ -x /usr/bin/time ]; then
    LD_PRELOAD="$PRELOAD" HCATRACE_VERBOSE=2 HCATRACE_DIR="$dir/wrapped" "$MPIRUN" $MPIRUN_FLAGS -np 4 \
        /usr/bin/time -o /dev/null "$EX/mpi_phases" $ARGS > wrapped.out 2> wrapped.err
    ok $? "4 ranks, each under GNU time: the run succeeds"
    ok $(($(grep -c 'frames symbolized for the node (its owner); libdw opened' wrapped.err) != 1)) \
        "4 ranks, each under GNU time: one rank owns the node"
    ok $(($(grep -c 'frames symbolized by the node.s owner; libdw not opened' wrapped.err) != 3)) \
        "4 ranks, each under GNU time: three ranks did not open libdw"
else
    ok 0 "4 ranks, each under GNU time: the run succeeds # SKIP no /usr/bin/time"
    ok 0 "4 ranks, each under GNU time: one rank owns the node # SKIP no /usr/bin/time"
    ok 0 "4 ranks, each under GNU time: three ranks did not open libdw # SKIP no /usr/bin/time"
fi

LD_PRELOAD="$PRELOAD" HCATRACE_VERBOSE=2 HCATRACE_NODE_SYMBOLS=0 HCATRACE_DIR="$dir/alone" "$MPIRUN" \
    $MPIRUN_FLAGS -np 4 "$EX/mpi_phases" $ARGS > alone.out 2> alone.err
ok $? "4 ranks, HCATRACE_NODE_SYMBOLS=0: the run succeeds"
ok $(($(grep -c 'frames symbolized alone; libdw opened' alone.err) != 4)) \
    "4 ranks, HCATRACE_NODE_SYMBOLS=0: every rank symbolized alone"

# the definitions, the sharing on and off, without samples (their addresses differ from run to run)
defs() {
    "$OTF2_PYTHON" - "$1" <<'PY'
import sys, otf2
with otf2.reader.open(sys.argv[1]) as r:
    d = r.definitions
    for x in d.regions:
        print("region", x.name, x.canonical_name, x.source_file, x.begin_line_number, x.region_role, x.paradigm)
    for x in d.source_code_locations:
        print("scl", x.file, x.line_number)
    for x in d.calling_contexts:
        s = x.source_code_location
        print("cc", x.region.name, s.file if s else None, s.line_number if s else None,
              x.parent.region.name if x.parent else None)
PY
}
for mode in 1 0; do
    LD_PRELOAD="$PRELOAD" HCATRACE_SAMPLING=off HCATRACE_NODE_SYMBOLS=$mode HCATRACE_DIR="$dir/nos$mode" \
        "$MPIRUN" $MPIRUN_FLAGS -np 4 "$EX/mpi_phases" $ARGS > /dev/null 2>&1
    defs "$dir/nos$mode/traces.otf2" > defs$mode.txt
done
ok $(($(grep -c '^cc ' defs1.txt) < 20)) "sampling off: the calling contexts read ($(grep -c '^cc ' defs1.txt))"
check "sampling off: definitions with the sharing = without it" cmp defs1.txt defs0.txt

LD_PRELOAD="$PRELOAD" HCATRACE_VERBOSE=2 HCATRACE_DIR="$dir/one" "$MPIRUN" $MPIRUN_FLAGS -np 1 \
    "$EX/mpi_phases" $ARGS > one.out 2> one.err
ok $? "1 rank: the run succeeds"
ok $(($(grep -c 'frames symbolized alone; libdw opened' one.err) != 1)) "1 rank: symbolized alone"
ok "$(find /dev/shm -maxdepth 1 -name "hcatrace-$(id -u)-*" -newer "$marker" 2>/dev/null | grep -c .)" \
    "still no shared file left in /dev/shm"
cd / && rm -rf "$dir"

# malloc_state.sh: the tracer leaves glibc's malloc as the program would have
# it: which large blocks are mapped of their own (tests/malloc_app.c, at its
# start, after MPI_Init and after MPI calls and OpenMP regions) is the same
# traced and untraced, with the default settings and with fast sampling (the
# symbolizing thread at work). A block glibc mapped, freed, raises its
# threshold for mapping: the counters' table freed at load did, and LULESH's
# per-step arrays then came from the heap (8,474 page faults traced, 221,307
# untraced). Under ASan the traced program runs on ASan's allocator, not
# glibc's: nothing to compare.
. "$(dirname "$0")/lib.sh"
APP="$BUILD/tests/malloc_app"
[ -x "$APP" ] || APP="$TOP/build/tests/malloc_app"
if [ "${SANITIZED:-0}" = 1 ]; then
    echo "ok 1 # SKIP ASan's allocator replaces glibc's in the traced runs"
    exit 0
fi
dir=$(fresh_dir)
cd "$dir" || exit 1
plain_mpirun 2 "$APP" 40 > plain.out 2> plain.err
plain_rc=$?
grep -q ':M' plain.out
ok $? "untraced: glibc maps the large blocks of its own (so a change would show: $(head -1 plain.out))"
for settings in default 1ms; do
    mkdir "$settings" && cd "$settings" || exit 1
    if [ "$settings" = default ]; then
        traced_mpirun 2 "$APP" 40 > traced.out 2> traced.err
    else
        HCATRACE_SAMPLING=1ms traced_mpirun 2 -x HCATRACE_SAMPLING "$APP" 40 > traced.out 2> traced.err
    fi
    traced_rc=$?
    ok $((plain_rc != 0 || traced_rc != 0)) "$settings: both runs succeed ($plain_rc, $traced_rc)"
    cmp -s ../plain.out traced.out
    ok $? "$settings: the same blocks mapped traced as untraced ($(diff ../plain.out traced.out | grep '^>' | head -1))"
    check "$settings: a trace was written" test -n "$(the_trace)"
    cd ..
done
cd / && rm -rf "$dir"

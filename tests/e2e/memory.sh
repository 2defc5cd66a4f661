# memory.sh: the traced process's resident memory (issue 13, docs/benchmarks.md
# "Peak resident memory"): libraries the tracer needs only while it starts
# (libpfm4) or never without a debuginfod server (libdebuginfod with libcurl) are
# not mapped during the run; counter names still resolve through libpfm4; the
# pages of the program's DWARF libdw read are given back after the lookups; the
# tracer adds a bounded amount to a small program's peak RSS, whatever the size of
# its sample buffers; events beyond the budget are on disk, not held a second time
# in OTF2's file buffer, and the budget's default is shared by a node's ranks
# (one 1 MiB chunk each at 8 ranks); the OpenMP regions are named with the
# frames' symbolizer, not a second one that reads the program's DWARF again.
. "$(dirname "$0")/lib.sh"

dir=$(fresh_dir)
cd "$dir" || exit 1
"$BUILD/tests/maps_app" 300 > plain.out 2> plain.err
ok $? "maps_app untraced runs"
env -u DEBUGINFOD_URLS LD_PRELOAD="$PRELOAD" "$BUILD/tests/maps_app" 300 libpfm libdebuginfod libcurl libgnutls \
    libcrypto > traced.out 2> traced.err
ok $? "maps_app traced runs"
ok "$(grep -c '^mapped' traced.out)" "during the run neither libpfm4 nor libdebuginfod (libcurl, GnuTLS, libcrypto) is mapped: $(grep '^mapped' traced.out | tr '\n' ' ')"
check "maps_app: the same output traced" cmp plain.out traced.out

# The pages of maps_app's own DWARF that the frames worker read (libelf's private
# writable mapping of the program at offset 0) are not left resident: dropped
# after the burst of lookups (hct_symbolizer_release_pages). 24 kB stay with
# main's library (2026-11-27); LULESH: 1.5 MiB.
env -u DEBUGINFOD_URLS LD_PRELOAD="$PRELOAD" "$BUILD/tests/maps_app" 300 +debug-pages > pages.out 2> pages.err
ok $? "maps_app traced runs (+debug-pages)"
grep -q '^debug pages mapped, ' pages.out
ok $? "libdw mapped maps_app's own file (its DWARF read for the samples): $(grep '^debug pages' pages.out)"
grep -q '^debug pages mapped, 0 kB resident' pages.out
ok $? "none of its pages left resident after the lookups"

# libpfm4 loaded again for what the counter set-up asks of it: the closest known
# names of an unknown counter come from its tables
HCATRACE_COUNTERS=instructions,no_such_counter LD_PRELOAD="$PRELOAD" "$BUILD/tests/maps_app" 10 libpfm \
    > counters.out 2> counters.err
ok $? "maps_app with an unknown counter runs"
grep -q "unknown counter 'no_such_counter' (closest known: [A-Za-z_]" counters.err
ok $? "libpfm4 dlopened for the counter set-up: closest known names given ($(grep -o 'closest known: [^)]*' counters.err))"
ok "$(grep -c '^mapped' counters.out)" "libpfm4 unloaded after the counter set-up"

# The tracer's share of a small program's peak RSS: the libraries' own pages
# (libdw, OTF2, libunwind, Open MPI's, the tracer's: about 4 MiB), a thread's 1 MiB
# sample buffer, the first 1 MiB event chunk, the worker's stack and heap: 6.9 MiB
# measured for markers_app (2026-11-27), 20 MiB before (libdebuginfod's chain,
# libpfm4, OTF2's 4 MiB definition chunks). Pages touched, not time: not load
# dependent. Under ASan the peak is the sanitizer's allocator (survive.sh).
peak_kb() {
    /usr/bin/time -f "%M" -o rss.txt "$@" > /dev/null 2>&1
    tail -n 1 rss.txt
}
# the least peak RSS of three runs: one run's moves by a few hundred kB (the
# difference checked below read 452-1,032 kB over four pairs of single runs)
least_peak_kb() {
    a=$(peak_kb "$@") b=$(peak_kb "$@") c=$(peak_kb "$@")
    printf '%s\n%s\n%s\n' "$a" "$b" "$c" | sort -n | head -n 1
}
if [ "${SANITIZED:-0}" = 1 ]; then
    ok 0 "the tracer adds at most 12 MiB to markers_app's peak RSS # SKIP under ASan: peak RSS is the sanitizer's allocator (checked in the plain pass)"
    ok 0 "a 64 MiB sample buffer is not resident whole # SKIP under ASan (as above)"
    ok 0 "9 MB of events with a 2 MiB budget # SKIP under ASan (as above)"
    ok 0 "one of 8 ranks on a node keeps 1 MiB of events # SKIP under ASan (as above)"
    ok 0 "one of 8 ranks holds less than with a 2 MiB budget # SKIP under ASan (as above)"
elif [ ! -x /usr/bin/time ]; then
    ok 0 "the tracer adds at most 12 MiB to markers_app's peak RSS # SKIP no /usr/bin/time (GNU time)"
    ok 0 "a 64 MiB sample buffer is not resident whole # SKIP no /usr/bin/time (GNU time)"
    ok 0 "9 MB of events with a 2 MiB budget # SKIP no /usr/bin/time (GNU time)"
    ok 0 "one of 8 ranks on a node keeps 1 MiB of events # SKIP no /usr/bin/time (GNU time)"
    ok 0 "one of 8 ranks holds less than with a 2 MiB budget # SKIP no /usr/bin/time (GNU time)"
else
    plain=$(peak_kb "$BUILD/tests/markers_app" 20000)
    traced=$(peak_kb env -u DEBUGINFOD_URLS LD_PRELOAD="$PRELOAD" "$BUILD/tests/markers_app" 20000)
    ok $((traced - plain > 12 * 1024)) "the tracer adds at most 12 MiB to markers_app's peak RSS ($plain kB untraced, $traced kB traced)"
    # a thread's sample buffer is resident as far as its samples reach (a step of
    # 64 KiB ahead, hct_prefault.h), not whole: a 64 MiB one adds as little (+71 MiB
    # with main's library of 2026-11-27, which touched it whole at the thread's start)
    big=$(peak_kb env -u DEBUGINFOD_URLS HCATRACE_SAMPLING_BUFFER=65536 LD_PRELOAD="$PRELOAD" \
        "$BUILD/tests/markers_app" 20000)
    ok $((big - plain > 12 * 1024)) "a 64 MiB sample buffer is not resident whole: the tracer still adds at most 12 MiB ($big kB traced)"
    # 9 MB of events through a 2 MiB budget: flushed during the run, each chunk
    # written from the tracer's memory (hct_otf2_direct.c), none kept in OTF2's 4 MiB
    # file buffer: +7.9 MiB (2026-11-27); +12.1 with main's library, whose flushes
    # filled that buffer
    plain=$(peak_kb "$BUILD/tests/markers_app" 50000)
    flushing=$(least_peak_kb env -u DEBUGINFOD_URLS HCATRACE_THIN=off HCATRACE_TOTAL_MEMORY=2 LD_PRELOAD="$PRELOAD" \
        "$BUILD/tests/markers_app" 50000)
    ok $((flushing - plain > 10 * 1024)) "9 MB of events with a 2 MiB budget: the tracer adds at most 10 MiB ($plain kB untraced, $flushing kB traced)"
    # HCATRACE_TOTAL_MEMORY unset, one of 8 ranks on its node (Open MPI's variable):
    # the 8 MiB default shared, 1 MiB each, one event chunk (hct_buffers_budget);
    # with the library of 577c519 16 MiB each: +26.9 MiB; with ec9cc6c's 2 MiB each,
    # as much as with the 2 MiB budget above (+8.1 against +8.1-8.2 MiB: fails the
    # second check); now +6.6-6.8 against +7.4-7.5 (2026-11-27)
    shared=$(least_peak_kb env -u DEBUGINFOD_URLS -u HCATRACE_TOTAL_MEMORY HCATRACE_THIN=off OMPI_COMM_WORLD_LOCAL_SIZE=8 \
        LD_PRELOAD="$PRELOAD" "$BUILD/tests/markers_app" 50000)
    ok $((shared - plain > 10 * 1024)) "one of 8 ranks on a node keeps 1 MiB of events: the tracer adds at most 10 MiB ($shared kB traced)"
    ok $((shared + 512 > flushing)) "one of 8 ranks holds at least 512 kB less than with a 2 MiB budget ($shared against $flushing kB)"
fi

# The parallel regions' names come from the frames' symbolizer (hct_openmp.c,
# symbolize_fns): the program's file is opened once for its DWARF, not a second
# time by a symbolizer of their own (ec9cc6c: twice; LULESH: its DWARF read again,
# +1.5 MiB of a rank's peak at the first flush). Counted with strace when present.
if ! command -v strace > /dev/null 2>&1; then
    ok 0 "the program's file opened once for its DWARF # SKIP no strace"
else
    HCATRACE_DIR=omp/trace HCATRACE_THIN=off OMP_NUM_THREADS=2 strace -f -qq -e trace=openat -o omp.strace \
        env -u DEBUGINFOD_URLS LD_PRELOAD="$PRELOAD" "$BUILD/tests/par_thin_app" 3000 > /dev/null 2>&1
    opened=$(grep -c "\"$BUILD/tests/par_thin_app\", O_RDONLY" omp.strace)
    ok $((opened != 1)) "the program's file opened once for its DWARF (par_thin_app: $opened times)"
fi
cd / && rm -rf "$dir"

# openmp_ompt.sh: OpenMP programs on LLVM's libomp, traced through its OMPT
# interface (hct_openmp_ompt.c): the GCC-built example run with libomp
# preloaded after libhcatrace.so (its GOMP_ calls reach libomp through the GOMP
# wrappers, which then only pass hints), and, when configure found clang, the
# clang-built one (__kmpc_ entries, seen by OMPT only). The same checks as
# openmp.sh on libgomp: one location per thread, samples on every thread, one
# region instance per thread per parallel region the program ran, fork/join and
# team records balanced, valid traces, output and exit code unchanged.
. "$(dirname "$0")/lib.sh"
export HCATRACE_SAMPLING=5ms # enough samples on the lightest thread of a short run
LIBOMP=${LIBOMP:-$(find /usr/lib /usr/lib64 /usr/local/lib -name libomp.so.5 2>/dev/null | sort | head -n 1)}
if [ -z "$LIBOMP" ] || ! [ -e "$LIBOMP" ]; then # optional (configure says so)
    ok 0 "OMPT tests # SKIP libomp.so.5 not found (Debian package libomp5-14)"
    exit 0
fi
ok 0 "libomp.so.5 found ($LIBOMP)"

# ompt_case LABEL PROGRAM NTHREADS ARGS...: plain (on libomp) and traced runs
# in a fresh directory (left as the current one), tracestat's facts in
# stat.txt; sets $regions to the number of parallel regions the program ran.
ompt_case() {
    label=$1 prog=$2 nt=$3
    shift 3
    dir=$(fresh_dir)
    cd "$dir" || exit 1
    OMP_NUM_THREADS=$nt LD_PRELOAD="$LIBOMP" "$prog" "$@" > plain.out 2> plain.err
    prc=$?
    OMP_NUM_THREADS=$nt LD_PRELOAD="$PRELOAD $LIBOMP" "$prog" "$@" > traced.out 2> traced.err
    ok $(($? != prc || prc != 0)) "$label: exit code 0, as untraced"
    check "$label: stdout identical" cmp plain.out traced.out
    ok "$(other_stderr traced.err | grep -c .)" "$label: nothing on stderr (but the no-PMU line)"
    trace=$(the_trace)
    check "$label: otf2-print --silent -Werror accepts the trace" valid_otf2 "$trace"
    "$TRACESTAT" "$trace" > stat.txt
    ok $? "$label: the trace reads back"
    regions=$(awk '/parallel regions/ { print $NF }' traced.out)
}

# common_checks LABEL NTHREADS REGION-PREFIX LOOPS: the per-thread structure
# (LOOPS: worksharing loops per thread per iteration that OMPT reports)
common_checks() {
    label=$1 nt=$2 pat=$3 loops=$4
    ok $(($(grep -c '^location ' stat.txt) != nt)) "$label: one location per thread ($(grep -c '^location ' stat.txt))"
    ok "$(grep '^location ' stat.txt | grep -vc ' balanced yes monotonic yes samples [1-9]')" \
        "$label: every location balanced, monotonic, with samples"
    ok $((regions != 20)) "$label: the program ran 20 parallel regions ($regions)"
    ok "$(awk -v r="$regions" '$1 == "threads" && ($8 != r || $10 != r || $12 != "ok") { print }' stat.txt | grep -c .)" \
        "$label: every thread begins and ends one team per parallel region, nested correctly"
    ok "$(awk -v r="$regions" '$1 == "threads" && $2 == 0 && ($4 != r || $6 != r) { print }' stat.txt | grep -c .)" \
        "$label: the master forks and joins once per parallel region"
    inst=$(awk -v p="$pat" '$1 == "region" && index($0, "region " p) == 1 { for (i = 3; i < NF; i++) if ($i == "instances") s += $(i + 1) } END { print s + 0 }' stat.txt)
    ok $((inst != nt * regions)) "$label: one region instance per thread per parallel region ($inst = $nt x $regions)"
    ok $(($(awk '$1 == "region" && $2 == "omp" && $3 == "critical" { print $5 }' stat.txt) != nt * 10)) \
        "$label: one critical section per thread per iteration"
    ok $(($(awk '$1 == "region" && $2 == "omp" && $3 == "for" { print $5 }' stat.txt) != nt * 10 * loops)) \
        "$label: $loops worksharing loop(s) per thread per iteration (seen by OMPT only)"
    grep -q "^comm OpenMP team 0.0.1/$nt size $nt$" stat.txt
    ok $? "$label: the team is a communicator of $nt threads"
}

for nt in 2 4; do
    label="libomp gcc-built $nt threads"
    ompt_case "$label" "$EX/omp_phases" $nt 10
    common_checks "$label" $nt "main._omp_fn." 1
    grep -q "^callsite main._omp_fn.0 main [^ ]*omp_phases.c:$(marker_line "$TOP/examples/omp_phases.c" imbalanced) " stat.txt
    ok $? "$label: the parallel region is named after its outlined function (GOMP wrapper's hint), called from main"
    ok "$(grep '^callsite ' stat.txt | grep -c 'libomp\|hct_openmp\| - ')" "$label: no call site inside libomp, the tracer or unknown"
    cd / && rm -rf "$dir"
done

# nested parallelism: every thread of the outer team runs an inner team of 2
ompt_case "libomp nested" "$EX/omp_phases" 2 3 nested
nested_checks "libomp nested"
cd / && rm -rf "$dir"

# tracing off: nothing recorded, nothing said
dir=$(fresh_dir)
cd "$dir" || exit 1
OMP_NUM_THREADS=2 HCATRACE_ENABLE=0 LD_PRELOAD="$PRELOAD $LIBOMP" "$EX/omp_phases" 2 > traced.out 2> traced.err
ok $? "libomp untraced: exit code 0"
ok $(($(ls -d hcatrace-* 2>/dev/null | wc -l) != 0 || $(grep -c . traced.err) != 0)) "libomp untraced: no trace, nothing on stderr"
cd / && rm -rf "$dir"

# clang-built (configure found clang -fopenmp): parallel regions by code address;
# clang's static loop calls the runtime too (__kmpc_for_static_init)
if [ -x "$EX/omp_phases_clang" ]; then
    for nt in 2 4; do
        label="libomp clang-built $nt threads"
        ompt_case "$label" "$EX/omp_phases_clang" $nt 10
        common_checks "$label" $nt "omp parallel @main " 2
        ok $(($(awk '$1 == "callsite" && $2 == "omp" && $3 == "parallel" && $4 == "@main" && $5 == "main" { s += $NF } END { print s + 0 }' stat.txt) != nt * regions)) \
            "$label: the parallel regions are named after their construct in main, called from main"
        cd / && rm -rf "$dir"
    done
else
    echo "# clang -fopenmp not configured: the clang-built case is not run"
fi

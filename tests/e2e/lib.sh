# lib.sh: shared helpers of the end-to-end tests (sourced, POSIX sh). Each test
# case prints one TAP line: "ok N - what" or "not ok N - what".
# BUILD is the build directory; SANITIZED=1 preloads the ASan runtime too.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD="$TOP/$BUILD" ;; esac
LIB="$BUILD/lib/libhcatrace.so"
EX="$TOP/build/examples"           # the user's programs: never sanitized
[ -d "$BUILD/examples" ] && EX="$BUILD/examples"
TRACESTAT="$BUILD/tests/tracestat"
MPIRUN=${MPIRUN:-mpirun}
MPIRUN_FLAGS="--allow-run-as-root --oversubscribe"
export OMPI_MCA_btl_vader_single_copy_mechanism=none # containers lack CMA
n=0
PRELOAD="$LIB"
if [ "${SANITIZED:-0}" = 1 ]; then
    PRELOAD="$(gcc -print-file-name=libasan.so) $LIB"
    # Open MPI's own allocations are not ours to judge; errors in our code abort;
    # a known fault in mpirun's own code is suppressed (tests/asan-openmpi.supp)
    export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:suppressions=$TOP/tests/asan-openmpi.supp"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fi

ok() { # condition-status description
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

checks_as_tap() { # FILE [PREFIX]: a checker's "ok ..." / "not ok ..." lines as test cases, other lines as comments
    while read -r line; do
        case $line in
        "ok "*) ok 0 "${2:-}${line#ok }" ;;
        "not ok "*) ok 1 "${2:-}${line#not ok }" ;;
        *) echo "# $line" ;;
        esac
    done < "$1"
}

check() { # description command... : ok when the command succeeds
    d=$1
    shift
    if "$@" >/dev/null 2>&1; then ok 0 "$d"; else ok 1 "$d"; fi
}

fresh_dir() { # a new empty working directory
    d=$(mktemp -d "${TMPDIR:-/tmp}/hcae2e.XXXXXX")
    echo "$d"
}

# traced_mpirun NP PROGRAM ARGS...: LD_PRELOAD set before mpirun, as users do
traced_mpirun() {
    np=$1
    shift
    LD_PRELOAD="$PRELOAD" "$MPIRUN" $MPIRUN_FLAGS -np "$np" "$@"
}

plain_mpirun() {
    np=$1
    shift
    "$MPIRUN" $MPIRUN_FLAGS -np "$np" "$@"
}

# plain_and_traced NP LABEL PROGRAM ARGS...: the program untraced (plain.out,
# plain.err) and traced (traced.out, traced.err) in the current directory; one
# case: both succeed.
plain_and_traced() {
    pt_np=$1
    pt_label=$2
    shift 2
    plain_mpirun "$pt_np" "$@" > plain.out 2> plain.err
    pt_plain=$?
    traced_mpirun "$pt_np" "$@" > traced.out 2> traced.err
    pt_traced=$?
    ok $((pt_plain != 0 || pt_traced != 0)) "$pt_label: both runs succeed ($pt_plain, $pt_traced)"
}

# The single experiment directory created in the current directory.
the_trace() {
    set -- hcatrace-*/traces.otf2
    [ $# -eq 1 ] && [ -f "$1" ] && echo "$1"
}

# The Debian python3 that has the python3-otf2 bindings (not a pyenv's or a venv's)
OTF2_PYTHON=${OTF2_PYTHON:-/usr/bin/python3}
# A trace OTF2's own reader accepts and that conforms to the rules it does not
# check (tests/otf2_conformance.py: unwind distances, the calling-context tree,
# balance, timestamps, metric recording modes), read by an independent reader.
# Its violations are printed as TAP comments (fd 3: the test's stdout, also
# inside check).
exec 3>&1
valid_otf2() {
    otf2-print --silent -Werror "$1" >/dev/null 2>&1 || return 1
    conformance=$("$OTF2_PYTHON" "$TOP/tests/otf2_conformance.py" "$1" 2>&1) && return 0
    printf '%s\n' "$conformance" | sed 's/^/# /' >&3
    return 1
}

# On a machine without a CPU PMU (VMs, containers, CI) every traced run says so
# in this one line; other_stderr FILE prints FILE without it.
NOPMU_LINE='^hcatrace: no hardware counters (.*); recording time, software events and call stacks$'
other_stderr() { grep -v "$NOPMU_LINE" "$1"; }

# mpi_boundaries TRACE: an hcatrace trace's MPI call enters and leaves in its
# order, one line each, "E|L LOC CALL CC VALUED PROGRAM_NS" (CALL the call's
# name, CC its calling context's ID, VALUED 1 when counter values were
# written at its time, PROGRAM_NS its time less the tracer's own time on the
# location so far, tool:time), and "M LOC" per Metric of counter values
mpi_boundaries() {
    otf2-print "$1" 2> /dev/null | awk '
        $1 == "METRIC" && !/tool:|sampling:/ { at[$2] = $3; print "M", $2; next }
        $1 == "METRIC" && /"tool:time"/ { v = $0; sub(/.*"tool:time" <[0-9]+>; UINT64; /, "", v); sub(/[^0-9].*/, "", v); tool[$2] = v; next }
        ($1 == "CALLING_CONTEXT_ENTER" || $1 == "CALLING_CONTEXT_LEAVE") && /Calling Context: "MPI_/ {
            name = $0; sub(/.*Calling Context: "/, "", name); cc = name; sub(/".*/, "", name); sub(/^[^"]*" </, "", cc); sub(/>.*/, "", cc)
            printf "%s %s %s %s %d %.0f\n", $1 == "CALLING_CONTEXT_ENTER" ? "E" : "L", $2, name, cc, at[$2] == $3, $3 - tool[$2]
        }'
}

# line number of the marker /* CALLSITE:name */ (or ! CALLSITE:name) in a source
marker_line() { grep -n "CALLSITE:$2\b" "$1" | head -1 | cut -d: -f1; }

# nested_checks LABEL: the checks of the nested OpenMP case (omp_phases N
# nested, 12 parallel regions), on stat.txt of the current directory
nested_checks() {
    label=$1
    inst=$(awk '$1 == "region" && $2 ~ /^main\._omp_fn\./ { s += $4 } END { print s + 0 }' stat.txt)
    ok $((regions != 12 || inst != 2 * regions)) "$label: 2 instances per parallel region, inner ones included ($inst, $regions regions)"
    ok "$(grep '^location ' stat.txt | grep -vc ' balanced yes monotonic yes ')" "$label: every location balanced"
    ok "$(awk '$1 == "threads" && $12 != "ok"' stat.txt | grep -c .)" "$label: teams nested correctly on every thread"
    grep -q '^callsite main._omp_fn.1 main._omp_fn.0 ' stat.txt
    ok $? "$label: the inner region is called from the outer one"
}

#!/bin/sh
# run-tests.sh: runs every unit test (cmocka, TAP output) and every end-to-end
# script (tests/e2e/*.sh, TAP output), then prints one summary line counting the
# passed and failed test cases. Exit status 1 if any failed.
# Environment: BUILD (build directory), SANITIZED=1 for the ASan+UBSan pass.
set -u
BUILD=${BUILD:-build}
export BUILD
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
log=$(mktemp "${TMPDIR:-/tmp}/hcatests.XXXXXX")
trap 'rm -f "$log"' EXIT INT TERM
label=""
[ "${SANITIZED:-0}" = 1 ] && label=" (ASan+UBSan)"
failed_scripts=""

run_one() { # name command...
    name=$1
    shift
    echo "# ---- $name$label"
    out=$("$@" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    printf '%s\n' "$out" | grep -E '^(not )?ok ' >> "$log"
    if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok '; then
        # a crash or an error outside any test case still counts as a failure
        echo "not ok - $name exited with status $rc" | tee -a "$log"
    fi
    if [ $rc -ne 0 ]; then failed_scripts="$failed_scripts $name"; fi
}

export CMOCKA_MESSAGE_OUTPUT=TAP
if [ "${CMOCKA_OK:-yes}" = no ]; then
    echo "ok - unit tests # SKIP configure found no cmocka (Debian package libcmocka-dev)" | tee -a "$log"
fi
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    run_one "$(basename "$t")" "$t"
done
for t in tests/e2e/*.sh; do
    run_one "$(basename "$t" .sh)" sh "$t"
done

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^not ok ' "$log")
echo "tests$label: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failing:$failed_scripts"; exit 1; }

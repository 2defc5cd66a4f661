# syscalls.sh: the tracer's system calls per OpenMP parallel region at 2
# threads (issue 13; docs/benchmarks.md, "System calls per parallel region").
# omp_phases runs 2 parallel regions per iteration, each ending in a barrier
# its threads wait at: kept-back barrier instances that last are written, each
# with the call path of its enter unwound late. libunwind's steps and its
# getcontext cost rt_sigprocmask calls (52 per region with the library before
# branch sys2t, 0.7 after): the late paths come from the thread's path cache
# and the unwind context is captured without the signal mask. strace -f -c
# counts the calls of an untraced and a traced run (the same preloads but the
# tracer's under ASan); the difference per parallel region is the tracer's.
. "$(dirname "$0")/lib.sh"

if ! command -v strace >/dev/null 2>&1; then
    echo "ok 1 # SKIP strace not installed"
    exit 0
fi
export OMP_NUM_THREADS=2
ITER=1000
REGIONS=$((2 * ITER))
SIGMASK_MAX=5 # rt_sigprocmask per region (the library before: 52)
TOTAL_MAX=60  # every system call per region (before: 84; after: 29 plain)

# calls NAME FILE: the calls of system call NAME (or "total") in strace -c's
# table, its 4th column (% time, seconds, usecs/call, calls[, errors], name); 0 if absent
calls() { awk -v s="$1" '$NF == s { c = $4 } END { print c + 0 }' "$2"; }

dir=$(fresh_dir)
cd "$dir" || exit 1
ASAN_ONLY=""
[ "${SANITIZED:-0}" = 1 ] && ASAN_ONLY="$(gcc -print-file-name=libasan.so)"
env ${ASAN_ONLY:+LD_PRELOAD="$ASAN_ONLY"} strace -f -c -o plain.st "$EX/omp_phases" $ITER > plain.out 2> plain.err
ok $? "syscalls: untraced run under strace: exit code 0"
HCATRACE_DIR="$dir/trace" LD_PRELOAD="$PRELOAD" strace -f -c -o traced.st "$EX/omp_phases" $ITER > traced.out 2> traced.err
ok $? "syscalls: traced run under strace: exit code 0"
check "syscalls: stdout identical" cmp plain.out traced.out
check "syscalls: a trace written" test -f "$dir/trace/traces.otf2"
check "syscalls: $REGIONS parallel regions" grep -q "parallel regions $REGIONS\$" traced.out

p=$(calls rt_sigprocmask plain.st)
t=$(calls rt_sigprocmask traced.st)
per=$(awk -v a="$t" -v b="$p" -v r="$REGIONS" 'BEGIN { printf "%.2f", (a - b) / r }')
ok "$(awk -v x="$per" -v m="$SIGMASK_MAX" 'BEGIN { print !(x <= m) }')" \
    "syscalls: rt_sigprocmask per parallel region $per <= $SIGMASK_MAX ($t traced, $p untraced)"
p=$(calls total plain.st)
t=$(calls total traced.st)
per=$(awk -v a="$t" -v b="$p" -v r="$REGIONS" 'BEGIN { printf "%.2f", (a - b) / r }')
ok "$(awk -v x="$per" -v m="$TOTAL_MAX" 'BEGIN { print !(x <= m) }')" \
    "syscalls: all system calls per parallel region $per <= $TOTAL_MAX ($t traced, $p untraced)"
for s in read clock_gettime timer_settime getpid rt_tgsigqueueinfo; do
    echo "# $s: $(calls $s traced.st) traced, $(calls $s plain.st) untraced"
done
cd / && rm -rf "$dir"

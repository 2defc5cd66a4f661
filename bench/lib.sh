# lib.sh: what the benchmark scripts share (sourced): the line naming the
# machine, the CPU time of a run, and the awk median function of their
# result tables.

# "AMD EPYC ..., 2 cores, Linux 6.1.0"
bench_machine() {
    model=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
    echo "${model:-unknown CPU}, $(nproc) cores, $(uname -sr)"
}

# Put before an awk program: median(list) of space-separated numbers.
AWK_MEDIAN='
function median(list,    n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}'

# measure OUT CMD...: appends "cpu_s wall_s maxrss_kib rank_maxrss_kib" of the
# job (rusage of the reaped child tree: mpirun waits for its ranks, so their
# CPU time and the largest RSS of any of them, mpirun's included, are in it;
# the largest rank's peak RSS from the file $MEASURE_RANKS, where each rank's
# GNU time appends it, else 0)
measure() {
    out=$1
    shift
    ranks=${MEASURE_RANKS:-/nonexistent}
    rm -f "${MEASURE_RANKS:-/nonexistent}"
    python3 - "$ranks" "$@" >> "$out" <<'EOF'
import os, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
wall = time.monotonic() - t0
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit("bench: %s failed (%d)" % (" ".join(sys.argv[2:]), status))
try:
    ranks = max(int(line) for line in open(sys.argv[1]) if line.strip().isdigit())
except (OSError, ValueError):
    ranks = 0
print("%.4f %.4f %d %d" % (ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss, ranks))
EOF
}

# lib.sh: what the benchmark scripts share (sourced): the line naming the
# machine, and the awk median function of their result tables.

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

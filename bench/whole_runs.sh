#!/bin/sh
# bench/whole_runs.sh: what tracing costs a whole run, as an analyst measures
# it (issue 13): each program at 1, 2 and 8 ranks with 1 and 2 OpenMP threads,
# untraced and traced at the default settings in interleaved pairs (the order
# alternates), and per configuration the median and spread (min-max) over the
# pairs of: CPU time (user + system of the whole job, every rank, every
# thread), wall time, the largest peak RSS of one process (mpirun's included:
# about 20 MiB, more than a small rank's), the largest peak RSS of one rank
# (GNU time around each rank: the application's process only), and the traced
# / untraced ratios of the medians. Also the samples taken and lost (from the
# traces' sampling statistics, tests/tracestat).
#   PROGRAMS   "name:args" list (examples, else test programs: thin_app);
#              default the examples mpi_omp_phases and mpi_phases, plus
#              examples/halo3d when it is built
#   RANKS      "1 2 8"      THREADS  "1 2"      PAIRS  5
#   LIB        the library to measure (default build/lib/libhcatrace.so)
# Builds nothing: run `make` first. Prints one table row per configuration
# (docs/benchmarks.md "Whole runs" has the recorded results).
set -eu
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
cd "$(dirname "$0")/.."
ROOT=$(pwd)
EX=$ROOT/build/examples
LIB=${LIB:-$ROOT/build/lib/libhcatrace.so}
TRACESTAT=$ROOT/build/tests/tracestat
RANKS=${RANKS:-1 2 8}
THREADS=${THREADS:-1 2}
PAIRS=${PAIRS:-5}
MPIRUN=${MPIRUN:-mpirun}
MPIFLAGS="--oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && MPIFLAGS="$MPIFLAGS --allow-run-as-root"
if [ -z "${PROGRAMS:-}" ]; then
    PROGRAMS="mpi_omp_phases:400 mpi_phases:-n,100"
    [ -x "$EX/halo3d" ] && PROGRAMS="$PROGRAMS halo3d:"
fi
for f in "$LIB" "$TRACESTAT"; do
    [ -e "$f" ] || { echo "bench/whole_runs.sh: $f is missing; run make first" >&2; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hcatrace-whole.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# Each rank runs under GNU time, which appends the rank's peak RSS (KiB) to
# $TMP/ranks; without /usr/bin/time the rank column is 0.
RANKRSS=
[ -x /usr/bin/time ] && RANKRSS="/usr/bin/time -a -f %M -o $TMP/ranks"

# measure (bench/lib.sh) reads the largest rank's peak RSS from $MEASURE_RANKS
MEASURE_RANKS="$TMP/ranks"

echo "# $(bench_machine); $(date -u '+%Y-%m-%d %H:%M') UTC; load average $(cut -d' ' -f1 /proc/loadavg)"
echo "# program args ranks threads | CPU s untraced median (min-max) | traced | ratio | wall ratio | peak RSS MiB untraced / traced (ratio) | a rank's peak RSS MiB untraced / traced (ratio) | samples written / lost in the tool"
for prog in $PROGRAMS; do
    name=${prog%%:*}
    args=$(echo "${prog#*:}" | tr ',' ' ')
    exe=$EX/$name
    [ -x "$exe" ] || exe=$ROOT/build/tests/$name # test programs (tests/thin_app)
    [ -x "$exe" ] || { echo "bench/whole_runs.sh: $exe is missing" >&2; exit 1; }
    for np in $RANKS; do
        for nt in $THREADS; do
            base="$MPIRUN $MPIFLAGS -np $np -x OMP_NUM_THREADS=$nt"
            : > "$TMP/u"
            : > "$TMP/t"
            : > "$TMP/s"
            i=1
            while [ "$i" -le "$PAIRS" ]; do
                dir=$TMP/trace.$i
                # shellcheck disable=SC2086
                traced() { measure "$TMP/t" $base -x HCATRACE_DIR="$dir" $RANKRSS env LD_PRELOAD="$LIB" "$exe" $args; }
                # shellcheck disable=SC2086
                untraced() { measure "$TMP/u" $base $RANKRSS "$exe" $args; }
                if [ $((i % 2)) = 1 ]; then untraced; traced; else traced; untraced; fi
                "$TRACESTAT" "$dir/traces.otf2" 2> /dev/null |
                    awk '$1 == "sampling" { for (k = 3; k <= NF; k++) { split($k, kv, "=")
                             if (kv[1] == "samples") t += kv[2]; else if (kv[1] == "lost_in_tool") l += kv[2] } }
                         END { print t + 0, l + 0 }' >> "$TMP/s"
                rm -rf "$dir"
                i=$((i + 1))
            done
            paste -d' ' "$TMP/u" "$TMP/t" "$TMP/s" | awk -v label="$name ${args:--} $np $nt" "$AWK_MEDIAN"'
                { uc = uc " " $1; uw = uw " " $2; ur = ur " " $3; uk = uk " " $4
                  tc = tc " " $5; tw = tw " " $6; tr = tr " " $7; tk = tk " " $8
                  if (NR == 1 || $1 < ucmin) ucmin = $1; if ($1 > ucmax) ucmax = $1
                  if (NR == 1 || $5 < tcmin) tcmin = $5; if ($5 > tcmax) tcmax = $5
                  taken += $9; lost += $10 }
                END {
                    printf "%s | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %.3f | %.3f | %.1f / %.1f (%.2f) | %.1f / %.1f (%.2f) | %d / %d\n",
                        label, median(uc), ucmin, ucmax, median(tc), tcmin, tcmax, median(tc) / median(uc),
                        median(tw) / median(uw), median(ur) / 1024, median(tr) / 1024, median(tr) / median(ur),
                        median(uk) / 1024, median(tk) / 1024, (median(uk) > 0 ? median(tk) / median(uk) : 0), taken, lost
                }'
        done
    done
done

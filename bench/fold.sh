#!/bin/sh
# bench/fold.sh: speed, memory and accuracy of hcafold (docs/benchmarks.md,
# "hcafold"; issue 5, bench/ requirement). Two parts, each on synthetic traces
# written by build/tests/hcasynth in a temporary directory:
#
# 1. Speed and memory. One large burst trace (2 ranks x 2 threads, 75,000
#    instances of 10 ms per location, a sample every 2.5 ms: ~5.6 M events,
#    ~1.3 M samples). In the same run:
#    - the raw OTF2 read rate of the trace: build/tests/foldstat --bench 3 (one
#      OTF2 reader, every event callback registered and doing nothing; best of
#      3 reads), measured before and after the hcafold runs; the larger is used;
#    - fold_read alone (hcafold's reading side, best of 3) with --jobs 1 and 2;
#    - hcafold end to end, `hcafold -q -f json --jobs N` for N = 1 and 2, REPS
#      runs each, alternating; wall time and peak memory (max RSS) per run;
#      events/s = trace events / median wall time; ratio to the raw rate
#      (goal: at least 50 %);
#    - the same with `-f csv` (no fold.json; since commit e3c4370 it writes the
#      line-number scatter as lines.csv), to show what fold.json costs;
#    - peak memory per million samples read (median max RSS / samples_read).
#    Max RSS comes from GNU time (/usr/bin/time, Debian package `time`) when
#    installed, otherwise from a tiny wait4() wrapper compiled with $CC.
# 2. Fold error against samples per instance. The classic ground truth
#    (300, 800 and 300 MIPS over 0-40, 40-90 and 90-100 % of a 20 ms region;
#    2 ranks x 160 instances, 3 % outliers, 2 % rate noise), sampled with a
#    period of 160, 80, 40, 20, 10, 5, 2.5 ms (+- a quarter of it), that is
#    about 0.125 ... 8 samples per instance, for seeds 7, 8, 9. Each trace is
#    folded (-f json) and judged by build/tests/foldcheck against truth.txt:
#    mean fit_mae and phase_mae over the seeds, the worst boundary error, and
#    in how many seeds the number of phases found equals the true one.
#
# Runs from anywhere (works in the repository root); builds nothing: run
# `make` first. Environment: REPS (3), CC (cc). About 1 minute.
set -eu
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
cd "$(dirname "$0")/.."
ROOT=$(pwd)
FOLD=$ROOT/build/bin/hcafold
SYNTH=$ROOT/build/tests/hcasynth
STAT=$ROOT/build/tests/foldstat
CHECK=$ROOT/build/tests/foldcheck
REPS=${REPS:-3}
for f in "$FOLD" "$SYNTH" "$STAT" "$CHECK"; do
    [ -x "$f" ] || { echo "bench/fold.sh: $f is missing; run make first" >&2; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hcafold-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cd "$TMP"

# ---- how to measure peak memory ------------------------------------------
if [ -x /usr/bin/time ] && /usr/bin/time --version 2>&1 | grep -q GNU; then
    RSS_HOW="GNU time (/usr/bin/time -f %M)"
    rss_run() { # FILE CMD...: run CMD, write its max RSS in KiB to FILE
        f=$1; shift
        /usr/bin/time -f %M -o "$f" "$@"
    }
else
    cat > maxrss.c <<'EOF'
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    pid_t p = fork();
    if (p == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (p < 0 || wait4(p, &st, 0, &ru) < 0)
        return 1;
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 1;
    fprintf(f, "%ld\n", ru.ru_maxrss);
    fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
EOF
    ${CC:-cc} -O2 -o maxrss maxrss.c ||
        { echo "bench/fold.sh: no GNU time and no C compiler to measure memory" >&2; exit 1; }
    RSS_HOW="wait4() ru_maxrss (no GNU time installed)"
    rss_run() {
        f=$1; shift
        "$TMP/maxrss" "$f" "$@"
    }
fi
now_ns() { date +%s%N; }

median() { # numbers on stdin -> median
    sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

load_before=$(uptime | sed 's/.*load average: //')

# ---- part 1: speed and memory --------------------------------------------
CLASSIC="--counter instructions:0-0.4=300e6,0.4-0.9=800e6,0.9-1=300e6"
PHASES="--functions phase_stencil:0-0.4,phase_update:0.4-0.9,phase_norm:0.9-1"
printf 'writing the large trace...\r' >&2
"$SYNTH" --out big --ranks 2 --threads 2 --instances 75000 --duration-ms 10 --period-ms 2.5 \
    --period-jitter 0.5 $CLASSIC $PHASES --seed 1 > /dev/null
size=$(du -sk big | cut -f1)

raw_read() { # TAG: foldstat --bench 3 (raw OTF2 rate and fold_read --jobs 1), then --jobs 2
    "$STAT" --bench 3 --jobs 1 big > "stat1.$1"
    "$STAT" --bench 3 --jobs 2 big > "stat2.$1"
}
printf 'raw OTF2 reads...          \r' >&2
raw_read before
events=$(awk -F'\t' '$1 == "events" { print $2 }' stat1.before)
samples=$(awk -F'\t' '$1 == "samples_read" { print $2 }' stat1.before)
kept=$(awk -F'\t' '$1 == "samples_kept" { print $2 }' stat1.before)
locations=$(awk -F'\t' '$1 == "locations" { print $2 }' stat1.before)

fold_run() { # FORMAT JOBS REP
    t0=$(now_ns)
    rss_run "rss.$1.$2.$3" "$FOLD" -q -f "$1" -j "$2" -o "out.$1.$2.$3" big
    t1=$(now_ns)
    echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) / 1e9 }' > "wall.$1.$2.$3"
    tail -n 1 "rss.$1.$2.$3" > "rss.$1.$2.$3.k" && mv "rss.$1.$2.$3.k" "rss.$1.$2.$3"
    rm -rf "out.$1.$2.$3"
}
r=1
while [ "$r" -le "$REPS" ]; do
    printf 'hcafold run %s/%s          \r' "$r" "$REPS" >&2
    if [ $((r % 2)) = 1 ]; then fold_run json 1 "$r"; fold_run json 2 "$r"; fold_run csv 1 "$r"; fold_run csv 2 "$r"
    else fold_run csv 2 "$r"; fold_run csv 1 "$r"; fold_run json 2 "$r"; fold_run json 1 "$r"; fi
    r=$((r + 1))
done
printf 'raw OTF2 reads again...    \r' >&2
raw_read after
load_mid=$(uptime | sed 's/.*load average: //')

rate_of() { # FILE KIND -> events/s
    awk -F'\t' -v k="$2" '$1 == "rate" && $2 == k { print $NF }' "$1"
}
raw=$( (rate_of stat1.before otf2_raw; rate_of stat2.before otf2_raw; rate_of stat1.after otf2_raw;
        rate_of stat2.after otf2_raw) | sort -g | tail -n 1)
raw_all=$(for f in stat1.before stat2.before stat1.after stat2.after; do rate_of $f otf2_raw; done |
          awk '{ printf "%s%.1f", (NR > 1 ? ", " : ""), $1 / 1e6 }')

echo "hcafold speed, memory and fold error (bench/fold.sh)"
echo "date:    $(date '+%Y-%m-%d %H:%M %Z')"
echo "machine: $(bench_machine)"
echo "load:    $load_before (start), $load_mid (after part 1)  [uptime: 1, 5, 15 min]"
echo "memory:  $RSS_HOW"
echo
echo "1. Speed and memory: one trace, $locations locations, $events events, $samples samples" \
     "read ($kept kept, inside instances), $((size / 1024)) MiB on disk"
echo
printf 'raw OTF2 read (foldstat --bench 3, 1 reader, best of 3; 4 measurements): %s M events/s; used: %.1f M events/s\n' \
    "$raw_all" "$(echo "$raw" | awk '{ print $1 / 1e6 }')"
for j in 1 2; do
    fr=$( (rate_of stat$j.before fold_read; rate_of stat$j.after fold_read) | sort -g | tail -n 1)
    printf 'fold_read alone, --jobs %s (best of 6):  %.1f M events/s = %.0f %% of raw\n' "$j" \
        "$(echo "$fr" | awk '{ print $1 / 1e6 }')" "$(echo "$fr $raw" | awk '{ print 100 * $1 / $2 }')"
done
echo
printf '%-22s %5s %24s %12s %10s %14s %12s\n' "hcafold end to end" "jobs" "wall s (median; runs)" "M events/s" "% of raw" "max RSS MiB" "MiB/M samples"
for fmt in json csv; do
    for j in 1 2; do
        walls=$(cat wall.$fmt.$j.* | sort -g | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }')
        w=$(cat wall.$fmt.$j.* | median)
        m=$(cat rss.$fmt.$j.* | median)
        echo "$fmt $j $w $m $events $samples $raw" | awk -v walls="$walls" '{
            printf "%-22s %5s %24s %12.2f %9.1f%% %14.0f %12.0f\n", "-q -f " $1, $2, sprintf("%.2f (%s)", $3, walls),
                $5 / $3 / 1e6, 100 * $5 / $3 / $7, $4 / 1024, ($4 / 1024) / ($6 / 1e6) }'
    done
done
echo "(goal: -f json at least 50 % of the raw OTF2 read rate; max RSS is the median over the runs)"
echo

# ---- part 2: fold error against samples per instance ---------------------
echo "2. Fold error against samples per instance: classic truth (300/800/300 MIPS over" \
     "0-40/40-90/90-100 %), 2 ranks x 160 instances of 20 ms, 3 % outliers, 2 % noise, seeds 7 8 9"
echo
: > curve.txt
for period in 160 80 40 20 10 5 2.5; do
    for seed in 7 8 9; do
        printf 'fold error: period %s ms, seed %s   \r' "$period" "$seed" >&2
        d=c.$period.$seed
        pj=$(echo "$period" | awk '{ print $1 / 4 }')
        "$SYNTH" --out "$d" --ranks 2 --instances 160 --duration-ms 20 --period-ms "$period" --period-jitter "$pj" \
            $CLASSIC $PHASES --outliers 0.03 --noise 0.02 --seed "$seed" > /dev/null
        spi=$(awk -F= '$1 == "samples_in_used" { s = $2 } $1 == "used_instances" { u = $2 } END { print s / u, u }' "$d/truth.txt")
        if "$FOLD" -q -f json -o "$d/fold" "$d" 2> "$d/err"; then
            "$CHECK" "$d/fold/fold.json" "$d/truth.txt" > "$d/check" || true
            awk -v p="$period" -v s="$seed" -v spi="$spi" '
                /^counter/ { fit = $4; ph = $6 }
                /^phases found/ { ok = ($3 == $5) }
                /^boundary/ { if ($4 > wb) wb = $4 }
                END { print p, s, spi, fit, ph, wb + 0, ok + 0, "ok" }' "$d/check" >> curve.txt
        else
            echo "$period $seed $spi - - - 0 nofold" >> curve.txt
        fi
        rm -rf "$d"
    done
done
printf '%40s\r' '' >&2
printf '%10s %17s %10s %17s %17s %15s %13s\n' "period ms" "samples/instance" "instances" "fit_mae mean/max" "phase_mae mean/max" "worst boundary" "phases right"
awk '
{ key = $1; if (!(key in n)) order[++k] = key; n[key]++; spi[key] += $3; inst[key] += $4
  if ($NF == "ok") { f[key] += $5; p[key] += $6; if ($5 > fm[key]) fm[key] = $5; if ($6 > pm[key]) pm[key] = $6
                    if ($7 > wb[key]) wb[key] = $7; good[key] += $8; folded[key]++ } }
END {
  for (i = 1; i <= k; i++) {
    key = order[i]
    if (folded[key] == 0) {
      printf "%10s %17.3f %10.0f %17s %18s %15s %13s\n", key, spi[key] / n[key], inst[key] / n[key], "no fold", "-", "-", "0/" n[key]
      continue
    }
    printf "%10s %17.3f %10.0f %17s %18s %15.4f %13s\n", key, spi[key] / n[key], inst[key] / n[key],
      sprintf("%.2f / %.2f %%", 100 * f[key] / folded[key], 100 * fm[key]), sprintf("%.2f / %.2f %%", 100 * p[key] / folded[key], 100 * pm[key]),
      wb[key], good[key] "/" n[key] (folded[key] < n[key] ? " (" n[key] - folded[key] " no fold)" : "")
  }
}' curve.txt
echo "(fit_mae, phase_mae: mean and max over the seeds of foldcheck's mean absolute relative errors of the"
echo " fitted rate curve (outside +-0.03 around true boundaries) and of the per-phase rates;"
echo " worst boundary: largest distance of a true boundary to the nearest found one, in normalized time;"
echo " bounds of the issue: 3 % and 0.02 at <= 2 samples per instance)"
echo "load:    $(uptime | sed 's/.*load average: //') (end)"

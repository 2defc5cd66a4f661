#!/bin/sh
# bench/estimator.sh: the precision of hcafold's folding estimator (how a
# sample's counter value becomes a point's y, fold/points.c) on synthetic
# traces with known truth whose instances run at different rates (issue 17;
# docs/benchmarks.md, "Folding estimator"). Two families from
# build/tests/hcasynth:
#   skew   the stepped rate of tests/e2e/hcafold.sh 3b: 400 instances of
#          2 ms, 2 G/s then 1 G/s at 0.5, samples every 0.5 ms (+- 0.1) read
#          5 us late, 1 % rate noise per instance
#   steps, five, ramp   the shapes of bench/bands.sh (tests/synth/shapes.sh):
#          2 ranks x 160 instances of 20 ms, samples every 5 ms (+- 1.25),
#          3 % outliers, 2 % rate noise
# each over SEEDS seeds; per family the median and largest fitted-rate
# error (foldcheck's fit_mae, mean |fit - truth| / mean truth) and how many
# folds found the true number of phases.
#
# Run from anywhere after `make`. Environment: SEEDS (default 1-8), FOLD (the
# hcafold to measure, default build/bin/hcafold: give another build's to
# compare estimators). About 2 minutes on an idle 2-core machine.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
. "$ROOT/tests/synth/shapes.sh"
. "$ROOT/bench/lib.sh"
FOLD=${FOLD:-$ROOT/build/bin/hcafold}
SYNTH=$ROOT/build/tests/hcasynth
CHECK=$ROOT/build/tests/foldcheck
SEEDS=${SEEDS:-1 2 3 4 5 6 7 8}
for f in "$FOLD" "$SYNTH" "$CHECK"; do
    [ -x "$f" ] || { echo "bench/estimator.sh: $f is missing; run make first" >&2; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hcafold-estimator.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cd "$TMP"

echo "hcafold's folding estimator against the truth (bench/estimator.sh)"
echo "date:    $(date '+%Y-%m-%d %H:%M %Z'), load $(uptime | sed 's/.*load average: //')"
echo "machine: $(bench_machine)"
echo "hcafold: $FOLD"
echo "seeds:   $SEEDS"
echo
: > all.txt
for family in skew steps five ramp; do
    for seed in $SEEDS; do
        d=$family.$seed
        if [ "$family" = skew ]; then
            "$SYNTH" --out "$d" --kind user --instances 400 --duration-ms 2 --period-ms 0.5 --period-jitter 0.1 \
                --counter instructions:0-0.5=2e9,0.5-1=1e9 --skew-us 5 --noise 0.01 --seed "$seed" > /dev/null
        else
            # shellcheck disable=SC2046
            "$SYNTH" --out "$d" --ranks 2 --instances 160 --duration-ms 20 --period-ms 5 --period-jitter 1.25 \
                $(synth_shape "$family") --outliers 0.03 --noise 0.02 --seed "$seed" > /dev/null
        fi
        "$FOLD" -q -f json -o "$d/fold" "$d" 2> /dev/null
        "$CHECK" "$d/fold/fold.json" "$d/truth.txt" --max-mae 1 > "$d.check" || true
        awk -v f="$family" '/^counter/ { mae = $4 } /^phases found/ { right = ($3 == $5) }
            END { print f, mae, right }' "$d.check" >> all.txt
    done
done
echo "| truth | folds | fit MAE median | fit MAE max | true number of phases |"
echo "|---|---|---|---|---|"
awk "$AWK_MEDIAN"'
    { n[$1]++; list[$1] = list[$1] " " $2; if ($2 > mx[$1]) mx[$1] = $2; right[$1] += $3
      if (!($1 in order)) { order[$1] = ++k; name[k] = $1 } }
    END { for (i = 1; i <= k; i++) { f = name[i]
              printf "| %s | %d | %.2f %% | %.2f %% | %d/%d |\n", f, n[f], 100 * median(list[f]), 100 * mx[f],
                     right[f], n[f] } }' all.txt

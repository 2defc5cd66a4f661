#!/bin/sh
# bench/bands.sh: how well hcafold's 95 % confidence bands cover the truth
# (issue 14; docs/benchmarks.md, "Confidence bands"). Synthetic traces with
# known truth from build/tests/hcasynth: five shapes of the rate (steps; a
# ramp from 200 to 1000 M/s; a narrow spike 0.48-0.52 at 4x; five unequal
# phases; two counters with different boundaries), 2 ranks x 160 instances of
# 20 ms, 3 % outliers, 2 % rate noise, sampled every 80, 40, 20, 10, 5, 2.5 ms
# (+- a quarter): 0.25 to 8 samples per instance, SEEDS seeds each. Each trace
# is folded (-f json) and judged by build/tests/foldcheck --min-coverage:
# per shape and sampling, the share of grid points away from the true jumps
# (+-0.03) where the band [rate_lo, rate_hi] holds the true rate (pooled over
# seeds and counters), the band's mean half-width over the true rate, the
# fitted rate's mean error (fit_mae), how many folds found the true number
# of phases (a ramp: one), and how many warned that the fold is coarse.
#
# Run from anywhere after `make`. Environment: SEEDS (default 1 to 20).
# About 17 minutes on the shared 2-core machine (load 14-20).
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
. "$ROOT/tests/synth/shapes.sh"
FOLD=${FOLD:-$ROOT/build/bin/hcafold}
SYNTH=$ROOT/build/tests/hcasynth
CHECK=$ROOT/build/tests/foldcheck
SEEDS=${SEEDS:-1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20}
for f in "$FOLD" "$SYNTH" "$CHECK"; do
    [ -x "$f" ] || { echo "bench/bands.sh: $f is missing; run make first" >&2; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hcafold-bands.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cd "$TMP"

start=$(date +%s)
echo "hcafold confidence bands against the truth (bench/bands.sh)"
echo "date:    $(date '+%Y-%m-%d %H:%M %Z'), load $(uptime | sed 's/.*load average: //')"
echo "seeds:   $SEEDS"
echo
: > all.txt
for s in steps ramp spike five two; do
    for p in 80 40 20 10 5 2.5; do
        for seed in $SEEDS; do
            printf '%s, period %s ms, seed %s      \r' "$s" "$p" "$seed" >&2
            d=$s.$p.$seed
            # shellcheck disable=SC2046
            "$SYNTH" --out "$d" --ranks 2 --instances 160 --duration-ms 20 --period-ms "$p" \
                --period-jitter "$(echo "$p" | awk '{ print $1 / 4 }')" $(synth_shape "$s") --outliers 0.03 \
                --noise 0.02 --seed "$seed" > /dev/null
            spi=$(awk -F= '$1 == "samples_in_used" { s = $2 } $1 == "used_instances" { u = $2 } END { print s / u }' \
                  "$d/truth.txt")
            if "$FOLD" -q -f json -o "$d/fold" "$d" 2> /dev/null; then
                "$CHECK" "$d/fold/fold.json" "$d/truth.txt" --min-coverage 0.0001 > "$d.check" || true
                warned=$(grep -c '"warning"' "$d/fold/fold.json" || true)
                awk -v s="$s" -v p="$p" -v spi="$spi" -v w="$warned" '
                    /^counter/ { mae[$2] = $4 }
                    /^phases found/ { right = ($3 == $5) }
                    /^coverage/ { cov[$2] = $3; n[$2] = $5; hw[$2] = $8 }
                    END { for (c in cov) print s, p, spi, c, cov[c], n[c], hw[c], mae[c], right, w }' \
                    "$d.check" >> all.txt
            fi
            rm -rf "$d" "$d.check"
        done
    done
done
printf '%60s\r' '' >&2
printf '%-7s %9s %10s %10s %12s %9s %13s %8s\n' shape "period" "smp/inst" coverage "half-width" fit_mae "phases right" warned
awk '
{ k = $1 " " $2; if (!(k in n)) order[++m] = k; n[k] += $6; c[k] += $5; hw[k] += $7; mae[k] += $8; f[k]++
  spi[k] += $3
  right[k] += $9; warned[k] += ($10 > 0); if (!($2 in tn)) porder[++np] = $2
  tn[$2] += $6; tc[$2] += $5; all_n += $6; all_c += $5 }
END {
  for (i = 1; i <= m; i++) { k = order[i]; split(k, a, " ")
    printf "%-7s %6s ms %10.2f %9.1f%% %11.2f%% %8.2f%% %13s %8s\n", a[1], a[2], spi[k] / f[k], 100 * c[k] / n[k],
      100 * hw[k] / f[k], 100 * mae[k] / f[k], right[k] "/" f[k], warned[k] "/" f[k] }
  printf "\npooled by sampling:"
  for (i = 1; i <= np; i++) printf "  %s ms %.1f%%", porder[i], 100 * tc[porder[i]] / tn[porder[i]]
  printf "\npooled over everything: %.1f%% of %d grid points\n", 100 * all_c / all_n, all_n }' all.txt
echo "(coverage: grid points away from +-0.03 of true jumps where the 95 % band holds the true rate,"
echo " pooled over seeds and counters; half-width and fit_mae: means over folds and counters, relative"
echo " to the true rate; phases right and warned: folds, counters of 'two' counted per counter)"
echo "time:    $(( $(date +%s) - start )) s, load $(uptime | sed 's/.*load average: //') (end)"

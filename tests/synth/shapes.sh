# shapes.sh: the hcasynth rate shapes of the confidence-band checks (sourced
# by tests/e2e/fold_bands.sh, tests/e2e/fold_coverage.sh and bench/bands.sh,
# POSIX sh). synth_shape NAME prints the --counter arguments of one truth:
#   steps  300/800/300 M/s over 0-0.4/0.4-0.9/0.9-1
#   ramp   a linear rate from 200 to 1000 M/s
#   spike  400 M/s with 1600 M/s over 0.48-0.52
#   five   five unequal phases
#   two    two counters with different boundaries (0.3; 0.6)
synth_shape() {
    case $1 in
    steps) echo "--counter instructions:0-0.4=300e6,0.4-0.9=800e6,0.9-1=300e6" ;;
    ramp) echo "--counter instructions:0-1=200e6~1000e6" ;;
    spike) echo "--counter instructions:0-0.48=400e6,0.48-0.52=1600e6,0.52-1=400e6" ;;
    five) echo "--counter instructions:0-0.1=300e6,0.1-0.35=900e6,0.35-0.45=500e6,0.45-0.8=1200e6,0.8-1=200e6" ;;
    two) echo "--counter instructions:0-0.3=500e6,0.3-1=900e6 --counter cycles:0-0.6=1e9,0.6-1=2e9" ;;
    *) return 1 ;;
    esac
}

# synth_programs BUILD: FOLD, SYNTH and CHECK, the programs synth_fold runs.
synth_programs() {
    FOLD="$1/bin/hcafold"
    SYNTH="$1/tests/hcasynth"
    CHECK="$1/tests/foldcheck"
}

# synth_fold SHAPE PERIOD_MS SEED: the checks' trace of one truth (2 ranks x
# 160 instances of 20 ms, sampled every PERIOD_MS +- a quarter, 3 % outliers,
# 2 % rate noise) into SHAPE.PERIOD.SEED/, folded into its fold/ and judged by
# foldcheck into SHAPE.PERIOD.SEED.check; appends its coverage lines to
# coverage.txt as "shape period counter covered points half_width
# ends_covered ends" (ends: the points within 0.05 of 0 or 1). Needs
# SYNTH, FOLD and CHECK (synth_programs).
synth_fold() {
    d=$1.$2.$3
    # shellcheck disable=SC2046
    "$SYNTH" --out "$d" --ranks 2 --instances 160 --duration-ms 20 --period-ms "$2" \
        --period-jitter "$(echo "$2" | awk '{ print $1 / 4 }')" $(synth_shape "$1") --outliers 0.03 --noise 0.02 \
        --seed "$3" > /dev/null &&
        "$FOLD" -q -f json -o "$d/fold" "$d" 2> "$d.err" &&
        "$CHECK" "$d/fold/fold.json" "$d/truth.txt" --min-coverage 0.0001 > "$d.check"
    # foldcheck exits 1 on its other bounds too: the coverage lines are what counts here
    awk -v s="$1" -v p="$2" '/^coverage/ { print s, p, $2, $3, $5, $8, $10, $12 }' "$d.check" >> coverage.txt
}

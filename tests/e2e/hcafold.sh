# hcafold.sh: end-to-end tests of hcafold on synthetic traces whose truth is
# known (tests/synth/hcasynth): recovered rates and phase boundaries against the
# truth, coarse against 100x finer sampling, outlier exclusion, rotating counter
# sets, determinism, every output file, and the bad-input cases with their
# messages and exit codes; progress lines in a batch job's log (tenths, -v, -q).
. "$(dirname "$0")/lib.sh"
SYNTH="$BUILD/tests/hcasynth"
FOLD="$BUILD/bin/hcafold"
CHECK="$BUILD/tests/foldcheck"
CLASSIC="--counter instructions:0-0.4=300e6,0.4-0.9=800e6,0.9-1=300e6"
PHASES="--functions phase_stencil:0-0.4,phase_update:0.4-0.9,phase_norm:0.9-1"
dir=$(fresh_dir)
cd "$dir" || exit 1

# 1. the classic case: 300/800/300 MIPS over 0-40/40-90/90-100 %, 320 instances,
#    under 2 samples per instance
"$SYNTH" --out classic --ranks 2 --instances 160 --duration-ms 20 --period-ms 14 --period-jitter 4 \
    $CLASSIC $PHASES --outliers 0.03 --noise 0.02 --seed 7 > /dev/null
ok $? "synthesizer writes the classic case"
check "synthetic trace passes otf2-print --silent -Werror" valid_otf2 classic/traces.otf2
"$FOLD" classic > summary.txt
ok $? "hcafold folds it (exit 0)"
spi=$(awk -F= '$1 == "samples_in_used" { s = $2 } $1 == "used_instances" { u = $2 } END { print s / u }' classic/truth.txt)
ok "$(awk -v s="$spi" 'BEGIN { print (s <= 2) ? 0 : 1 }')" "classic: at most 2 samples per instance on average ($spi)"
"$CHECK" classic/traces.fold/fold.json classic/truth.txt > check.txt
ok $? "classic: rates within 3 % MAE of the truth, 3 phases, boundaries within 0.02"
grep -Eq '^    phase 2  0\.[34][0-9]-0\.[89][0-9]  instructions 7[89][0-9]\.[0-9] MIPS \(' summary.txt
ok $? "the summary gives the instruction rate in MIPS, as the plots do (800 MIPS in phase 2)"
sed 's/^/# /' check.txt
for f in fold.json 01-*.curves.csv 01-*.points.csv 01-*.bands.csv 01-*.gp 01-*.png 01-*.svg; do
    set -- classic/traces.fold/$f
    check "output $f written" test -s "$1"
done
check "the PNG is a PNG" sh -c "head -c 8 classic/traces.fold/01-*.png | grep -q PNG"
"$FOLD" -f json -o slash classic/ > slash.txt 2>&1
ok $(($? != 0 || $(grep -c '//' slash.txt slash/fold.json | awk -F: '{ s += $2 } END { print s }') != 0)) \
    "a directory given with a trailing / names classic/traces.otf2, not classic//traces.otf2"
gp=$(ls classic/traces.fold/01-*.gp | head -1)
grep -q "^set ytics [0-9]* font ',7'$" "$gp" && grep -q "^set format y '%.0f'$" "$gp" &&
    grep -q "^set ylabel 'line of [a-z_]*\.c'" "$gp"
ok $? "the line panel has whole line numbers and names the file"
grep -q 'source 0.00-0.40  phase_stencil' summary.txt && grep -q 'source 0.40-0.90  phase_update' summary.txt &&
    grep -q 'source 0.90-1.00  phase_norm' summary.txt
ok $? "classic: source bands name the phase functions at their true times"
excl=$(awk -F= '$1 == "excluded_expected" { print $2 }' classic/truth.txt)
grep -q "$excl excluded" summary.txt
ok $? "classic: the $excl outlier instances are excluded and counted"
# each counter's resolution (output.md): from the points' scatter, (2 s^2 / (m 0.0225^2))^(1/3): the
# same instances with 25 times the rate noise scatter 25 times as much, 25^(2/3) = 8.55 times coarser
# (measured 0.0158 and 0.140); the summary names a counter coarser than 0.1 of the region
"$SYNTH" --out noisy --ranks 2 --instances 160 --duration-ms 20 --period-ms 14 --period-jitter 4 \
    $CLASSIC $PHASES --outliers 0.03 --noise 0.5 --seed 7 > /dev/null && "$FOLD" noisy > noisy.txt
res=$(sed -n 's/.*"resolution":[[:space:]]*\([0-9.e-]*\).*/\1/p' classic/traces.fold/fold.json)
nres=$(sed -n 's/.*"resolution":[[:space:]]*\([0-9.e-]*\).*/\1/p' noisy/traces.fold/fold.json)
ok "$(awk -v a="${res:-0}" -v b="${nres:-0}" 'BEGIN { r = a > 0 ? b / a : 0; print (a <= 0.1 && r > 8.55 * 0.75 && r < 8.55 * 1.25) ? 0 : 1 }')" \
    "resolution: classic ${res:-none}, 25 times the noise ${nres:-none} (8.55 times coarser, +-25 %)"
! grep -q 'rates resolved only' summary.txt && grep -q 'warning: rates resolved only over instructions 0\.1[0-9]' noisy.txt
ok $? "the summary names the noisy fold's instructions as resolved only over 0.1x of the region, not the classic's"
! grep -q 'rates resolved only' classic/traces.fold/report.html &&
    grep -q 'warning: rates resolved only over instructions 0\.1[0-9] of the region' noisy/traces.fold/report.html
ok $? "report.html says the same of the noisy fold, and nothing of the classic's"
# fitted from fewer points than were folded (--max-points), more samples would be capped away too:
# the warning says to raise the cap, not to sample faster (issue 17: truth_app beside a busy process,
# 66,133 points folded and 20,000 fitted at 1 ms, docs/benchmarks.md "Beside a busy process")
"$FOLD" --max-points 200 -f json,html -o noisy/capped noisy > capped.txt 2> /dev/null
grep -q 'rates resolved only over instructions 0\.[0-9]* .*raise --max-points (200 of [0-9]* points fitted)$' capped.txt &&
    grep -q 'raise --max-points (200 of [0-9]* points fitted)' noisy/capped/report.html &&
    grep -q 'the fold is coarse; raise --max-points (200 of [0-9]* points fitted)' noisy/capped/fold.json &&
    grep -q 'rates resolved only over instructions .*: finer changes are averaged out; sample faster or fold more instances$' noisy.txt &&
    grep -q 'the fold is coarse; sample faster or run longer' noisy/traces.fold/fold.json
ok $? "capped at --max-points 200, both warnings say to raise it ($(sed -n 's/.*rates.*(\(200 of [0-9]*\) points fitted).*/\1/p' capped.txt)); uncapped, to sample faster"
# capped at 440 of the 447 points: raising the cap would add 2 %, too few to narrow anything (the
# folded must be 1.25 times the fitted; issue 17: truth_app at 2 ms was told "raise --max-points
# (20000 of 20024 points fitted)"): both warnings say to sample faster
"$FOLD" --max-points 440 -f json -o noisy/nearly noisy > nearly.txt 2> /dev/null
grep -q '"points_used":[[:space:]]*440,' noisy/nearly/fold.json && ! grep -q 'raise --max-points' nearly.txt noisy/nearly/fold.json &&
    grep -q 'rates resolved only over instructions .*: finer changes are averaged out; sample faster or fold more instances$' nearly.txt &&
    grep -q 'the fold is coarse; sample faster or run longer' noisy/nearly/fold.json
ok $? "capped at --max-points 440 of 447, the warnings say to sample faster, not to raise the cap"
# a counter whose fit at the cap is coarse is fitted again from up to --coarse-max-points points
# (default 100,000 over a cap of 20,000; issue 17: truth_app beside a busy process, docs/benchmarks.md
# "The fit against truth"): the noisy fold's instructions at 200 of 447 points resolve 0.18 of the region
# and miss the true rate by 9 % on average; fitted again from all 447, 1.5 % (its mean error over
# the grid, foldcheck's fit_mae); a cap given alone stays exact (the fold above)
"$FOLD" -q --max-points 200 --coarse-max-points 100000 -f json -o noisy/raised noisy > /dev/null 2>&1
cmae=$("$CHECK" noisy/capped/fold.json noisy/truth.txt | sed -n 's/^counter instructions fit_mae \([0-9.]*\).*/\1/p')
rmae=$("$CHECK" noisy/raised/fold.json noisy/truth.txt | sed -n 's/^counter instructions fit_mae \([0-9.]*\).*/\1/p')
grep -q '"points_used":[[:space:]]*200,' noisy/capped/fold.json && grep -q '"points_used":[[:space:]]*447,' noisy/raised/fold.json &&
    [ "$(awk -v c="${cmae:-0}" -v r="${rmae:-1}" 'BEGIN { print (r < 0.03 && c > 2 * r) ? 0 : 1 }')" = 0 ]
ok $? "coarse at --max-points 200: fitted again from all 447 points (--coarse-max-points), fit MAE ${rmae:-none} against ${cmae:-none} at the cap"

# 2. coarse against 100x finer sampling of the same run
"$SYNTH" --out fine --ranks 2 --instances 160 --duration-ms 20 --period-ms 14 --period-jitter 4 \
    $CLASSIC $PHASES --outliers 0.03 --noise 0.02 --seed 7 --fine-factor 100 > /dev/null
"$FOLD" -q fine
"$CHECK" classic/traces.fold/fold.json --compare fine/traces.fold/fold.json > cmp.txt
ok $? "coarse and 100x finer sampling agree within 5 % ($(cut -d' ' -f4 cmp.txt))"

# 3. rotating counter sets: each instance measures one set
"$SYNTH" --out sets --ranks 2 --instances 200 --duration-ms 10 --period-ms 6 --period-jitter 2 \
    --counter instructions:0-0.5=500e6,0.5-1=1000e6 --counter cycles:0-1=2000e6 \
    --counter page-faults:0-0.3=2000,0.3-0.5=20000,0.5-1=2000 \
    --sets 'instructions,cycles;instructions,page-faults' --seed 3 > /dev/null
"$FOLD" -q sets
ok $? "rotating sets: folded"
"$CHECK" sets/traces.fold/fold.json sets/truth.txt --max-mae 0.05 > check3.txt
ok $? "rotating sets: every counter within 5 %, boundaries 0.3 and 0.5 found"
sed 's/^/# /' check3.txt

# 3b. a tracer's skew (issue 16): samples whose counter values are those of
#     5 us after their timestamps, in regions of 2 ms (0.0025 of the region):
#     no edge phase, a flat rate flat and a step where it is (the stepped
#     rate's fit within 1 %: 0.3 % with the folded y of points.h; points in
#     absolute units, which carried the instances' 1 % rate noise, gave
#     0.9-1.5 % over seeds 6-9: bench/estimator.sh, issue 17)
"$SYNTH" --out skew --kind user --instances 400 --duration-ms 2 --period-ms 0.5 --period-jitter 0.1 \
    --counter task-clock:0-1=1e9 --skew-us 5 --noise 0.01 --seed 5 > /dev/null &&
    "$FOLD" -q -f json,csv skew
ok $? "skewed samples, flat rate: folded"
"$CHECK" skew/traces.fold/fold.json skew/truth.txt --max-mae 0.005 > check3b.txt
ok $? "skewed samples, flat rate: one phase, rate within 0.5 % everywhere"
sed 's/^/# /' check3b.txt
edge=$(awk -F, 'NR > 1 && ($1 <= 0.02 || $1 >= 0.98) { d = $3 / 1e9 - 1; if (d < 0) d = -d; if (d > m) m = d } END { print m + 0 }' skew/traces.fold/*.curves.csv)
ok "$(awk -v m="$edge" 'BEGIN { print (m <= 0.005) ? 0 : 1 }')" "skewed samples, flat rate: within 0.5 % of 1 G/s at 0-0.02 and 0.98-1 (worst $edge)"
"$SYNTH" --out skew2 --kind user --instances 400 --duration-ms 2 --period-ms 0.5 --period-jitter 0.1 \
    --counter instructions:0-0.5=2e9,0.5-1=1e9 --skew-us 5 --noise 0.01 --seed 6 > /dev/null &&
    "$FOLD" -q -f json skew2 && "$CHECK" skew2/traces.fold/fold.json skew2/truth.txt --max-mae 0.01 > check3c.txt
ok $? "skewed samples, stepped rate: the two true phases, rates within 1 %, boundary within 0.02"
sed 's/^/# /' check3c.txt

# 4. determinism, and --jobs does not change the result
"$FOLD" -q -j 1 -f json -o j1 classic && "$FOLD" -q -j 2 -f json -o j2 classic
ok $? "folding with --jobs 1 and 2"
check "same trace in, same numbers out (--jobs 1 = --jobs 2 = default)" \
    sh -c "cmp j1/fold.json j2/fold.json && cmp j1/fold.json classic/traces.fold/fold.json"

# 5. selection and formats
"$FOLD" -q -c instructions -f json -o sel classic
ok $? "counter selection"
grep -q '"name":[[:space:]]*"instructions"' sel/fold.json
ok $? "selected counter present in fold.json"
ok "$(ls sel | grep -vc '^fold.json$')" "-f json writes fold.json only"

# 6. bad input: one hcafold line, a documented exit code, never a crash
"$FOLD" -q nowhere > out 2> err
rc=$?
ok $((rc != 3)) "missing trace: exit 3 ($rc)"
grep -q '^hcafold: nowhere: ' err
ok $? "missing trace: one hcafold message"
mkdir notatrace && echo hello > notatrace/traces.otf2
"$FOLD" -q notatrace > out 2> err
rc=$?
ok $((rc != 3)) "a text file named traces.otf2: exit 3 ($rc)"
ok $(($(grep -c '^hcafold: ' err) != 1 || $(wc -l < err) != 1)) "a text file: exactly one message line"
cp -r classic trunc
for f in trunc/traces/*.evt; do head -c 300 "$f" > "$f.x" && mv "$f.x" "$f"; done
"$FOLD" -q trunc > out 2> err
rc=$?
ok $((rc != 3)) "truncated event files: exit 3 ($rc)"
grep -q '^hcafold: ' err
ok $? "truncated event files: an hcafold message"
"$SYNTH" --out nosamples --instances 50 --duration-ms 5 --period-ms 100000 $CLASSIC > /dev/null
"$FOLD" -q nosamples > out 2> err
rc=$?
ok $((rc != 4)) "a trace without samples: exit 4 ($rc)"
grep -q 'no samples' err
ok $? "a trace without samples: says so"
"$SYNTH" --out few --instances 5 --duration-ms 20 --period-ms 5 $CLASSIC > /dev/null
"$FOLD" -q few > out 2> err
rc=$?
ok $((rc != 4)) "too few instances: exit 4 ($rc)"
grep -q 'min-instances' err
ok $? "too few instances: names the option to change"
grep -q '"reason":[[:space:]]*"[0-9] used instances* (--min-instances 10)' few/traces.fold/fold.json &&
    grep -q 'no: [0-9] used instances* (--min-instances 10)' few/traces.fold/report.html &&
    grep -q '"runtime_s":' few/traces.fold/fold.json
ok $? "too few instances: fold.json and report.html still written, with the run and the reason"
mkdir empty
"$FOLD" -q empty > out 2> err
rc=$?
ok $((rc != 3)) "a directory without an archive: exit 3 ($rc)"
grep -q 'no .otf2 anchor file in it' err
ok $? "a directory without an archive: the reader's search says so"
"$FOLD" --bogus classic > out 2> err
ok $(($? != 2)) "unknown option: exit 2"
"$FOLD" --grid 2 classic > out 2> err
ok $(($? != 2)) "--grid 2: exit 2"
grep -q -- "^hcafold: --grid needs a positive number, not '2'$" err
ok $? "--grid 2: the message names the option"
"$FOLD" -j zero classic > out 2> err
ok $(($? != 2)) "bad --jobs: exit 2"
"$FOLD" -q -o /proc/hcafold-no classic > out 2> err
rc=$?
ok $((rc != 5)) "unwritable output directory: exit 5 ($rc)"
"$FOLD" --help > out
ok $? "--help: exit 0"
grep -q -- '--region' out
ok $? "--help lists the options"

# progress in a batch job's log (stderr not a terminal): lines, not carriage returns; in tenths
# by default, every step with -v, none with -q
"$SYNTH" --out many --ranks 8 --threads 3 --instances 40 --duration-ms 10 --period-ms 3 \
    --counter instructions:0-1=1e9 > /dev/null
"$FOLD" -f json many > out 2> err
ok $? "24 locations fold"
ok "$(tr -cd '\r' < err | wc -c)" "progress without carriage returns"
lines=$(grep -c '^hcafold: read [0-9]*/24 locations (' err)
ok $((lines < 10 || lines > 11)) "by default a line per tenth of the locations read ($lines lines)"
ok "$([ "$(grep 'locations' err | tail -1)" = "hcafold: read 24/24 locations (100 % of the events)" ]; echo $?)" \
    "the last says all were read"
ok $(($(grep -c '^hcafold: folded region [12]/2: MPI_Allreduce@' err) != 2)) "a line per region folded, numbered"
"$FOLD" -v -f json many > out 2> err
ok $? "-v: exit 0"
seq 1 24 | sed 's|.*|hcafold: read &/24 locations|' > want
ok "$(sed -n 's/ (.*//p' err | grep locations | diff want - > /dev/null; echo $?)" "-v: a line for every location, in order"
"$FOLD" -q -f json many > out 2> err
ok $(($(wc -c < err) + $(wc -c < out))) "-q: nothing on stderr or stdout"

# a trace without counters (time and samples only) is plotted too: its counter
# panel says so (gnuplot refuses a plot without a defined point)
"$SYNTH" --out nocounters --instances 60 > /dev/null
"$FOLD" -f png,svg -o nocounters.fold nocounters > out 2> err
rc=$?
ok $((rc != 0)) "a trace without counters folds and plots (exit $rc)"
png=$(ls nocounters.fold/*.png 2>/dev/null | head -1)
[ -s "$png" ] && ! grep -q 'undefined' nocounters.fold/gnuplot.log
ok $? "its plot is drawn (${png##*/}), without an undefined plot"
cd / && rm -rf "$dir"

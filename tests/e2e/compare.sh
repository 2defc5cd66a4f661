# compare.sh: hcafold --compare BEFORE AFTER on synthetic traces with known
# truth (tests/synth/hcasynth): a region whose second phase doubles its
# duration is named with that phase and both durations; a phase whose
# instruction rate halves at the same duration is named with that rate; the
# POP metrics before and after; regions in one run only are listed;
# compare.html is self-contained and opens in headless Chromium without a
# console message.
. "$(dirname "$0")/lib.sh"
FOLD="$BUILD/bin/hcafold"
SYNTH="$BUILD/tests/hcasynth"
CHROMIUM=${CHROMIUM:-chromium}
dir=$(fresh_dir)
cd "$dir" || exit 1
common="--kind user --instances 150 --ranks 2 --period-ms 1 --counter cycles:0-1=2e9"
# before: 10 ms, load 40 % (4 ms) then stream 60 % (6 ms); after: stream takes 12 ms
"$SYNTH" --out before $common --duration-ms 10 --functions load:0-0.4,stream:0.4-1 \
    --counter instructions:0-0.4=3e9,0.4-1=1e9 --seed 3 > /dev/null &&
    "$SYNTH" --out longer $common --duration-ms 16 --functions load:0-0.25,stream:0.25-1 \
        --counter instructions:0-0.25=3e9,0.25-1=1e9 --seed 4 > /dev/null &&
    "$SYNTH" --out slower $common --duration-ms 10 --functions load:0-0.4,stream:0.4-1 \
        --counter instructions:0-0.4=3e9,0.4-1=0.5e9 --seed 5 > /dev/null &&
    "$SYNTH" --out bursts --kind burst --instances 150 --duration-ms 10 --period-ms 1 --seed 6 > /dev/null
ok $? "synthesizer writes the before, longer, slower and burst traces"

"$FOLD" --compare before longer > longer.txt 2> longer.err
ok $? "hcafold --compare before longer (exit 0)"
sed 's/^/# /' longer.txt | head -12
line=$(grep '^    changed most: ' longer.txt)
ok "$(echo "$line" | awk '{ ok = $3 == "P2" && $8 - 6 < 0.3 && 6 - $8 < 0.3 && $10 - 12 < 0.5 && 12 - $10 < 0.5
    print ok ? 0 : 1 }')" "names P2 as the phase that changed, about 6 -> 12 ms per instance ($line)"
grep -q '^ 1\. iteration \[user\]$' longer.txt
ok $? "the region is matched by name"
grep -q '^  parallel efficiency [0-9.]* -> [0-9.]* ([-+][0-9.]*), load balance ' longer.txt
ok $? "the POP metrics before and after"
html=longer/traces.compare/compare.html
check "compare.html beside the after trace" test -s "$html"
grep -Eiq '<script|<link|<img|@import|url\(|(src|href)="[a-z]+:' "$html"
ok $((1 - $?)) "compare.html is self-contained"
grep -q 'class="changed".*changed most: P2 ' "$html"
ok $? "compare.html names the phase that changed"

"$FOLD" -q --compare before slower
ok $? "hcafold -q --compare (exit 0)"
"$FOLD" --compare before slower > slower.txt 2>&1
line=$(grep '^    rate changed most: ' slower.txt)
ok "$(echo "$line" | awk '{ ok = $4 == "P2" && $9 == "instructions" && $(NF-1) ~ /^\(-(4[5-9]|5[0-5])\./
    print ok ? 0 : 1 }')" "names P2's instruction rate, halved ($line)"

"$FOLD" --compare before bursts > mixed.txt 2>&1
ok $? "two runs without a common region compare (exit 0)"
grep -q '^only before: iteration$' mixed.txt && grep -q '^only after: MPI_Allreduce' mixed.txt
ok $? "the regions of one run only are listed"
"$FOLD" --compare before > /dev/null 2>&1
ok $(($? != 2)) "--compare with one trace is a usage error (2)"

if command -v "$CHROMIUM" > /dev/null 2>&1; then
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --enable-logging=stderr --v=0 \
        --dump-dom "file://$PWD/$html" > dom.html 2> chrome.err
    ok $(($? != 0 || $(grep -Eic 'CONSOLE|Uncaught' chrome.err) != 0)) "compare.html opens in Chromium, no console message"
else
    ok 0 "compare.html in Chromium # SKIP no chromium (scripts/install-deps)"
fi
cd / && rm -rf "$dir"

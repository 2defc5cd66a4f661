# fold_tool_bound.sh: removing the tracer's own time never leaves a thread
# more CPU time than wall time (issue 10). A synthetic trace (hcasynth) of
# bursts of 1 ms at one CPU, sampled every 0.2 ms at 50 us a sample, whose
# tracer records its wall time 20 % longer than it was (its CPU time exactly,
# --tool-time-long 0.2): removing what it records takes 10 us too much from
# each burst, as the tracer's time exceeded what was left of LULESH's 3.4 us
# OpenMP regions with 8 ranks on 2 cores (1.02-1.04 CPUs). The duration gets
# back what was removed too much and its samples their share of it: the fold
# shows the truth, bursts of 1.000 ms at one CPU (1.05 G/s and 0.950 ms
# before), one phase, and the tool time removed is what the CPU time allows.
. "$(dirname "$0")/lib.sh"
SYNTH="$BUILD/tests/hcasynth"
FOLD="$BUILD/bin/hcafold"
dir=$(fresh_dir)
cd "$dir" || exit 1

"$SYNTH" --out synth --ranks 1 --instances 400 --duration-ms 1 --duration-jitter 0.02 --period-ms 0.2 \
    --period-jitter 0.05 --counter task-clock:0-1=1e9 --sample-cost-us 50 --tool-time-long 0.2 --seed 5 > /dev/null
ok $? "hcasynth writes bursts whose tracer records its wall time 20 % long"
key=$(awk -F= '$1 == "region" { print $2 }' synth/truth.txt)
"$FOLD" -r "$key" synth > synth.txt 2> synth.err
ok $? "hcafold folds them at default settings"
region=$(awk '/^ 1\. /,/^$/' synth.txt)
echo "$region" | grep -q 'instances used (0 excluded), mean 1\.000 ms'
ok $? "the bursts' mean duration is the truth, 1.000 ms ($(echo "$region" | grep -o 'mean [0-9.]* ms'))"
echo "$region" | grep -Eq 'CPU share (99\.[5-9]|100\.0) %'
ok $? "CPU share one CPU, not above ($(echo "$region" | grep -o 'CPU share [0-9.]* %'))"
nphases=$(echo "$region" | grep -c '^    phase ')
echo "$region" | grep -Eq 'phase 1  0\.00-1\.00  task-clock (99[5-9]\.[0-9] M|1000\.0 M|1\.00 G)/s'
ok $(($? != 0 || nphases != 1)) "one phase at one CPU (1 G/s within 0.5 %; $nphases phases)"
# 400 bursts x 5 samples x 50 us = 0.1 s: all of the tracer's time removed, no more
removed=$(echo "$region" | sed -n 's/^ *\([0-9.]*\) s of the tracer.s own time removed.*/\1/p')
ok $(awk -v r="$removed" 'BEGIN { print (r >= 0.095 && r <= 0.105) ? 0 : 1 }') \
    "the tracer's time removed is what it spent, 0.1 s ($removed s)"

rm -rf "$dir"

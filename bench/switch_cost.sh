#!/bin/sh
# switch_cost.sh: CPU time per context switch of a traced thread (issue 13):
# bench/switch_cost untraced, traced with HCATRACE_COUNTER_SOURCE=perf (one
# perf group of software events open per thread) and with =auto (software
# counters without perf events), in rotating rounds; medians and ranges of the
# process's CPU ns per sched_yield (each a switch to the other thread on CPU 0,
# or to whatever else runs there). Usage: bench/switch_cost.sh [BUILD [ROUNDS [YIELDS]]]
BUILD=${1:-build}
ROUNDS=${2:-5}
YIELDS=${3:-50000}
LIB="$BUILD/lib/libhcatrace.so"
APP="$BUILD/bench/switch_cost"
out=$(mktemp -d)
configs="untraced perf auto"
r=0
while [ $r -lt "$ROUNDS" ]; do
    for c in $configs; do
        case $c in
        untraced) "$APP" "$YIELDS" ;;
        *) HCATRACE_COUNTER_SOURCE=$c HCATRACE_SAMPLING=off HCATRACE_DIR="$out/t" LD_PRELOAD="$LIB" "$APP" "$YIELDS" 2> /dev/null ;;
        esac | awk '{ print $2 }' >> "$out/$c"
        rm -rf "$out"/t*
    done
    set -- $configs
    configs="$(echo "$configs" | cut -d' ' -f2-) $1" # rotate the order
    r=$((r + 1))
done
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds of $YIELDS yields per thread"
for c in untraced perf auto; do
    sort -n "$out/$c" | awk -v c=$c '{ v[NR] = $1 } END { printf "%-9s CPU ns per yield: median %d (%d-%d)\n", c, v[int((NR + 1) / 2)], v[1], v[NR] }'
done
rm -rf "$out"

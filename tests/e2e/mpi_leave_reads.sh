# mpi_leave_reads.sh: which MPI call leaves read the counters
# (instrument/hct_mpi_burst.h). A leave starts a compute burst whose length
# is not known yet; the tracer predicts it per calling context: a leave is
# written without counter values when its context's last bursts were short
# (they are never folded: under 10 us), but a call in a loop whose last call
# is followed by a long burst must read at that last call, or the long burst,
# the one a user folds, would never have values at its start.
# tests/burst_loop_app runs, per iteration, MPI_Iprobe from one site LOOP
# times (short bursts), then about 200 us of work (the long burst), then
# MPI_Iprobe from a second site, followed at once by the next iteration's
# loop. Sampling off: a sample due soon makes a leave read too. Every long
# burst has values at both ends, from the first iteration (a context is
# predicted short only after 32 short bursts in a row, or by the run length
# learned); past the first 10 iterations most leaves before short ones have
# none, the loop's line reads at its last call only; with HCATRACE_THIN=off
# every leave has them. A prediction by the last bursts alone (no run
# length) fails: with 2 short bursts in a row every long one started without
# values; with 32 the loop's line reads at every call.
. "$(dirname "$0")/lib.sh"

APP="$BUILD/tests/burst_loop_app"
[ -x "$APP" ] || APP="$TOP/build/tests/burst_loop_app"
ITER=400
LOOP=4
LEARN=10 # iterations left out at the start

dir=$(fresh_dir)
cd "$dir" || exit 1

"$APP" $ITER $LOOP 200 > plain.out 2> plain.err
# per MPI call's leave (in order, on the rank's location) and the burst it
# begins: the call's calling context ("-" for calls but MPI_Iprobe), whether
# the leave has counter values, the program's time (the trace's less the
# tracer's tool:time) to the next MPI enter, whether that enter has values:
# "CC VALUED NS VALUED_END"
leaves() { # TRACE
    mpi_boundaries "$1" | awk '
        $1 == "E" && open[$2] { l = $2; printf "%s %d %d %d\n", cc[l], valued[l], $6 - left[l], $5; open[l] = 0 }
        $1 == "L" { l = $2; cc[l] = $3 == "MPI_Iprobe" ? $4 : "-"; valued[l] = $5; open[l] = 1; left[l] = $6 }'
}
for mode in default off; do
    thin=""
    [ $mode = off ] && thin=off
    env ${thin:+HCATRACE_THIN=$thin} HCATRACE_SAMPLING=off HCATRACE_DIR="$dir/$mode" LD_PRELOAD="$PRELOAD" \
        "$APP" $ITER $LOOP 200 > "$mode.out" 2> "$mode.err"
    ok $? "mpi_leave_reads: HCATRACE_THIN=$mode: traced run exit code 0"
    check "mpi_leave_reads: HCATRACE_THIN=$mode: output identical" cmp -s plain.out "$mode.out"
    leaves "$dir/$mode/traces.otf2" > "$mode.leaves"
done
# the loop's site: the context with the most leaves
loop_cc=$(awk '$1 != "-" { n[$1]++ } END { for (c in n) if (n[c] > best) { best = n[c]; b = c } print b }' default.leaves)
# past the learning iterations: the long bursts (those after the loop's last
# call: each iteration's Iprobes are LOOP of the loop's, then the second
# site's) and their start's values; short ones (any other under 10 us) and
# theirs. Long by position, not by length: under ASan on a loaded machine a
# short burst now and then lasts 50 us (3 of 403 read as long bursts without
# values in one make check), and rightly has none. Such a short burst that
# lasted 10 us or more (a preemption) disturbs the loop's learned run length:
# a long burst in that iteration or the next may then start without values
# (399 of 400 once under ASan, in a run with 3 short bursts that long), at
# most one per disturbed iteration, counted apart
summary() { # FILE [SKIP]: the Iprobes' bursts, past the first SKIP iterations (default LEARN)
    awk -v skip=$((${2:-$LEARN} * (LOOP + 1))) -v loop=$LOOP '$1 != "-" && ++n <= '$((ITER * (LOOP + 1) - 1))' {
        it = int((n - 1) / (loop + 1))
        if (n % (loop + 1) != loop && $3 >= 10000 && !(it in disturbed)) { disturbed[it] = 1; ndisturbed++ }
        if (n <= skip) next
        if (n % (loop + 1) == loop) {
            long++; long_valued += $2; long_50us += $3 >= 50000
            if (!$2 && ((it in disturbed) || ((it - 1) in disturbed))) excused++
        } else if ($3 < 10000) { short++; short_valued += $2 }
    } END { print long + 0, long_valued + 0, short + 0, short_valued + 0, long_50us + 0, excused + 0, ndisturbed + 0 }' "$1"
}
set -- $(summary default.leaves 0)
long=$1 long_valued=$2 long_50us=$5 excused=$6 disturbed=$7
set -- $(summary default.leaves)
short=$3 short_valued=$4
ok "$([ "$long" -ge $((ITER - 5)) ] && [ "$((long_valued + excused))" -eq "$long" ] && [ "$excused" -le "$disturbed" ] && [ "$((long_50us * 10))" -ge "$((long * 9))" ]; echo $?)" \
    "mpi_leave_reads: every long burst (after the loop's last call; $long_50us of $long lasted 50 us or more) starts with counter values, also while the loop is learned: $long_valued of $long ($excused without right after one of $disturbed iterations whose short bursts were disturbed)"
ok "$([ "$short" -ge $(((ITER - LEARN) * LOOP / 2)) ] && [ "$((short_valued * 10))" -le "$short" ]; echo $?)" \
    "mpi_leave_reads: leaves before short bursts without counter values: $((short - short_valued)) of $short (at least 90 %)"
loop_bare=$(awk -v c="$loop_cc" '$1 == c && !$2 { n++ } END { print n + 0 }' default.leaves)
ok "$([ "$loop_bare" -ge $(((ITER - LEARN) * (LOOP - 1) * 9 / 10)) ]; echo $?)" \
    "mpi_leave_reads: the loop's site (context $loop_cc) reads at its last call only: $loop_bare of its $((ITER * LOOP)) leaves without values"
set -- $(summary off.leaves)
ok "$([ "$1" -gt 0 ] && [ "$2" -eq "$1" ] && [ "$3" -gt 0 ] && [ "$4" -eq "$3" ]; echo $?)" \
    "mpi_leave_reads: HCATRACE_THIN=off: every leave with counter values (long bursts $2 of $1, short $4 of $3)"
# hcafold counts the bursts without values at an end as the trace has them
nobursts=$(awk '!$2 || !$4 { n++ } END { print n + 0 }' default.leaves)
"$BUILD/bin/hcafold" -f json -o "$dir/fold" "$dir/default/traces.otf2" > fold.txt 2>&1
check "mpi_leave_reads: hcafold reports the $nobursts bursts without counter values at an end" \
    grep -q "^without counter values at an end (short, no sample): $nobursts of " fold.txt
[ -n "${KEEP:-}" ] || { cd / && rm -rf "$dir"; }

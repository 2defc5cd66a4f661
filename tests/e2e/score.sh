# score.sh: `hcafold --score TRACE` (docs/output.md, "Score") against what the
# tracer really writes: the estimated bytes of a trace's event records within
# 1 % of its event files; the suggested filter names the tiny, frequent
# regions of tests/thin_app and not its long one; what HCATRACE_FILTER (the
# suggestion) and HCATRACE_THIN (its defaults) would leave, predicted from a
# run that wrote everything, against reruns with them (within 10 % and 25 %:
# a rerun's instances are shorter, so a few more of them are thinned). Runs
# without samples, whose number follows each run's time on a loaded machine;
# the MPI example's trace, with samples, is scored too.
. "$(dirname "$0")/lib.sh"

APP="$BUILD/tests/thin_app"
[ -d "$TOP/build/tests" ] && [ -x "$TOP/build/tests/thin_app" ] && APP="$TOP/build/tests/thin_app" # never sanitized
HCAFOLD="$BUILD/bin/hcafold"
export OMP_NUM_THREADS=2 HCATRACE_SAMPLING=off

# bytes in the event files of experiment directory $1
evt_bytes() { cat "$1"/traces/*.evt | wc -c; }
# the first number of bytes in parentheses on the line of the score $1 that starts with $2
predicted() { sed -n "s/^$2[^(]*(\([0-9]*\) bytes.*/\1/p" "$1" | head -1; }
# |$1 - $2| <= $2 * $3 / 100
within() { awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= w * p / 100) }'; }

dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_DIR=all HCATRACE_THIN=off LD_PRELOAD="$PRELOAD" "$APP" 20000 500 > /dev/null 2> all.err
ok $? "thin_app, every instance written: exit code 0"
"$HCAFOLD" --score all --suggest-filter suggested.filter > score.txt 2> score.err
ok $? "hcafold --score reads the trace"
real=$(evt_bytes all)
est=$(predicted score.txt "estimated event records")
within "${est:-0}" "$real" 1
ok $? "estimated event records within 1 % of the event files ($est against $real bytes)"
grep -q '^tracer time: [0-9.]* s (measured in the trace: tool:time)$' score.txt
ok $? "the tracer's time is the trace's own measurement"
grep -q '^ +  USR  *40000  *0 .* tiny$' score.txt
ok $? "every instance of 'tiny' counted (40000), filterable"
grep -q '^ t  OMP-PAR ' score.txt
ok $? "parallel regions are listed as thinned, not filtered"
[ "$(grep -v '^#' suggested.filter | sort | tr '\n' ,)" = "omp critical,tiny," ]
ok $? "the suggested filter: the tiny regions, not 'long' ($(grep -v '^#' suggested.filter | tr '\n' ,))"

# the suggestion's saving against a rerun with it
"$HCAFOLD" --score all --filter "$PWD/suggested.filter" > filtered.txt
want=$(predicted filtered.txt "with HCATRACE_FILTER")
HCATRACE_DIR=filtered HCATRACE_THIN=off HCATRACE_FILTER="$PWD/suggested.filter" LD_PRELOAD="$PRELOAD" \
    "$APP" 20000 500 > /dev/null 2>&1
got=$(evt_bytes filtered)
within "$got" "${want:-0}" 10
ok $? "with the suggested filter: $got bytes written, $want predicted (within 10 %)"

# HCATRACE_THIN=1000,50us against a rerun with it (set: without the cost
# rule of the defaults, which writes these tiny regions' first 100 only)
want=$(predicted score.txt "with HCATRACE_THIN=1000,50us")
HCATRACE_DIR=thinned HCATRACE_THIN=1000,50us LD_PRELOAD="$PRELOAD" "$APP" 20000 500 > /dev/null 2>&1
got=$(evt_bytes thinned)
within "$got" "${want:-0}" 25
ok $? "with HCATRACE_THIN=1000,50us: $got bytes written, $want predicted (within 25 %)"
# at the defaults the cost rule writes less than that (an upper bound)
HCATRACE_DIR=defaults LD_PRELOAD="$PRELOAD" "$APP" 20000 500 > /dev/null 2>&1
low=$(evt_bytes defaults)
ok $((${low:-0} <= 0 || ${low:-0} >= got)) "at the defaults (the cost rule) fewer bytes: $low against $got"

# the same from the hcatrace command, as scorep-score is Score-P's
"$TOP/scripts/hcatrace" score all > hcatrace_score.txt 2>&1
ok $? "hcatrace score: exit status 0"
check "hcatrace score prints what hcafold --score does" cmp hcatrace_score.txt score.txt

# a bad filter is a usage error, said in one line
"$HCAFOLD" --score all --filter 'a,,b' > bad.out 2> bad.err
rc=$?
ok $((rc != 2)) "a bad --filter: exit status 2 ($rc)"
ok $(($(grep -c '^hcafold: ' bad.err) != 1)) "a bad --filter: one hcafold: line"

# an MPI job with samples and counters
unset HCATRACE_SAMPLING
HCATRACE_DIR=$PWD/mpi traced_mpirun 2 "$EX/mpi_phases" -n 60 -p 4 > /dev/null 2>&1
ok $? "mpi_phases, 2 ranks: exit code 0"
"$HCAFOLD" --score mpi > mpi.txt 2> mpi.err
real=$(evt_bytes mpi)
est=$(predicted mpi.txt "estimated event records")
within "${est:-0}" "$real" 1
ok $? "mpi_phases: estimated event records within 1 % of the event files ($est against $real bytes)"
grep -q '^ -  MPI .* MPI_Allreduce$' mpi.txt && grep -q '^    SAMPLE  *[1-9]' mpi.txt
ok $? "mpi_phases: MPI calls (not filterable) and samples have rows of their own"
cd / && rm -rf "$dir"

# fold_read.sh: end-to-end tests of hcafold's reading side with its test tools.
# The synthesizer's archives are valid OTF2 and byte-identical for the same
# arguments (but the anchor's random OTF2 trace ID); bad arguments are refused.
# foldstat reads them back with the counts of the ground truth, the same digest
# for --jobs 1 and 2, the same instances for a 100x finer sampling; bad inputs
# give a documented status and a one-line message. A trace of the MPI example by
# libhcatrace.so gives compute bursts keyed by the example's call sites.
. "$(dirname "$0")/lib.sh"
SYNTH="$BUILD/tests/hcasynth"
FOLDSTAT="$BUILD/tests/foldstat"
SRC="$TOP/examples/mpi_phases.c"
COUNTERS="--counter instructions:0-0.4=300e6,0.4-0.9=800e6,0.9-1=300e6 --counter cycles:0-1=2e9
 --counter page-faults:0-0.5=1000,0.5-1=0"
SETS="instructions,cycles;instructions,page-faults"
FUNCS="phase_stencil:0-0.4,phase_update:0.4-0.9,phase_norm:0.9-1"

truth() { sed -n "s/^$1=//p" "$2/truth.txt"; }
# column of the region line of a name in a foldstat output
region_col() { awk -F'\t' -v n="$1" -v c="$2" '$1 == "region" && $2 == n && $4 ~ /^0\// { print $c }' "$3"; }
digest() { awk -F'\t' '$1 == "digest" { print $2 }' "$1"; }

dir=$(fresh_dir)
cd "$dir" || exit 1

# ---- the synthesizer -------------------------------------------------------
# shellcheck disable=SC2086
"$SYNTH" --out burst --ranks 2 --threads 2 --instances 150 --outliers 0.05 --noise 0.1 --period-ms 3 \
    --period-jitter 1 $COUNTERS --sets "$SETS" --functions "$FUNCS" --seed 4 --lost-samples 3
ok $? "hcasynth writes a burst trace (2 ranks x 2 threads)"
check "the burst trace passes otf2-print --silent -Werror" valid_otf2 burst/traces.otf2
# shellcheck disable=SC2086
"$SYNTH" --out user --kind user --threads 3 --instances 60 $COUNTERS --functions "$FUNCS"
ok $? "hcasynth writes a user-region trace (3 threads)"
check "the user-region trace passes otf2-print --silent -Werror" valid_otf2 user/traces.otf2
# shellcheck disable=SC2086
"$SYNTH" --out again --ranks 2 --threads 2 --instances 150 --outliers 0.05 --noise 0.1 --period-ms 3 \
    --period-jitter 1 $COUNTERS --sets "$SETS" --functions "$FUNCS" --seed 4 --lost-samples 3
same=0
diff -r burst/traces again/traces > /dev/null && cmp -s burst/traces.def again/traces.def &&
    cmp -s burst/truth.txt again/truth.txt || same=1
ok $same "same arguments: byte-identical events, definitions and truth"
otf2-print -A burst/traces.otf2 | grep -v 'Trace identifier' > a1.txt
otf2-print -A again/traces.otf2 | grep -v 'Trace identifier' > a2.txt
check "same arguments: anchor files equal but for OTF2's random trace identifier" cmp a1.txt a2.txt
"$SYNTH" --out bad --counter 'instructions:0-0.5=1e9' > bad.out 2> bad.err
rc=$?
ok $((rc != 2)) "hcasynth refuses a rate function that does not reach 1 (status $rc)"
grep -q '^hcasynth: counter' bad.err
ok $? "... with a message naming the counter"
"$SYNTH" --out burst > /dev/null 2>&1
ok $(($? == 0)) "hcasynth never overwrites a trace"

# ---- reading it back -------------------------------------------------------
"$FOLDSTAT" --jobs 1 burst > j1.txt
ok $? "foldstat --jobs 1 reads the burst trace"
"$FOLDSTAT" --jobs 2 burst > j2.txt
ok $? "foldstat --jobs 2 reads the burst trace"
name=$(truth region burst)
got="$(region_col "$name" 5 j1.txt) $(region_col "$name" 7 j1.txt) $(region_col "$name" 8 j1.txt)"
want="$(truth instances burst) $(truth excluded_expected burst) $(truth samples_in_instances burst)"
[ "$got" = "$want" ]
ok $? "instances, excluded, samples of '$name' equal the truth ($got / $want)"
[ "$(awk -F'\t' '$1 == "samples_read" { print $2 }' j1.txt)" = "$(truth samples burst)" ]
ok $? "every sample of the trace is read"
[ "$(awk -F'\t' '$1 == "samples_lost" { print $2 }' j1.txt)" = "$(truth samples_lost burst)" ]
ok $? "samples reported lost by the sampling statistics: $(truth samples_lost burst)"
"$BUILD/bin/hcafold" -f json -o burst.fold burst > burst.sum 2> burst.err
grep -q "locations*, $(truth samples_lost burst) samples lost ($(truth samples_lost burst) to a full sample buffer)\$" burst.sum
ok $? "hcafold's summary says why the samples were lost ($(sed -n 1p burst.sum | sed 's/.*, //'))"
grep -q '^counters	instructions,cycles,page-faults$' j1.txt
ok $? "the counters are the trace's, without the sampling statistics"
[ -n "$(digest j1.txt)" ] && [ "$(digest j1.txt)" = "$(digest j2.txt)" ]
ok $? "--jobs 1 and --jobs 2 read the same ($(digest j1.txt))"
"$FOLDSTAT" --jobs 2 user > u.txt
[ "$(region_col iteration 5 u.txt)" = "$(truth instances user)" ]
ok $? "user regions: every 'iteration' instance found"

# shellcheck disable=SC2086
"$SYNTH" --out coarse --instances 50 --period-ms 5 $COUNTERS --seed 8 &&
    "$SYNTH" --out fine --instances 50 --period-ms 5 $COUNTERS --seed 8 --fine-factor 100
ok $? "hcasynth writes the same run with 100x finer sampling"
"$FOLDSTAT" coarse > c.txt && "$FOLDSTAT" fine > f.txt
name=$(truth region coarse)
ci=$(region_col "$name" 5 c.txt)
fi_=$(region_col "$name" 5 f.txt)
cs=$(region_col "$name" 8 c.txt)
fs=$(region_col "$name" 8 f.txt)
[ -n "$ci" ] && [ "$ci" = "$fi_" ] && [ "$fs" -gt $((90 * cs)) ] && [ "$fs" -lt $((110 * cs)) ]
ok $? "finer sampling: same instances ($ci, $fi_), ~100x the samples ($cs, $fs)"

# ---- bad input -------------------------------------------------------------
expect_status() { # description status words path
    "$FOLDSTAT" "$4" > /dev/null 2> err.txt
    rc=$?
    [ "$rc" -eq "$2" ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "^foldstat: .*$3" err.txt
    ok $? "$1: status $rc, '$(cat err.txt)'"
}
mkdir notatrace && echo hello > notatrace/README
expect_status "a directory without an archive" 3 "not an OTF2 archive" notatrace
echo "plain text" > notes.txt
expect_status "a text file" 3 "not an OTF2 archive" notes.txt
expect_status "a missing path" 2 "No such file" nowhere/traces.otf2
cp -r burst trunc && truncate -s 2000 trunc/traces/1.evt
expect_status "a truncated event file" 4 "location 1" trunc
cp -r burst nodefs && rm nodefs/traces.def
expect_status "missing global definitions" 4 "global definitions" nodefs

# ---- a real trace ------------------------------------------------------------
ITER=30
traced_mpirun 2 "$EX/mpi_phases" -q -n $ITER -s 20000 > run.out 2> run.err
ok $? "the MPI example runs traced with 2 ranks"
trace=$(the_trace)
"$FOLDSTAT" --jobs 1 "$trace" > real1.txt 2> real.err
ok $? "foldstat reads the tracer's archive ($(cat real.err))"
"$FOLDSTAT" --jobs 2 "$trace" > real2.txt
[ "$(digest real1.txt)" = "$(digest real2.txt)" ]
ok $? "the tracer's archive: --jobs 1 and 2 read the same"
bad=$(awk -F'\t' '$1 == "location" && ($8 != 0 || $9 != 0)' real1.txt | wc -l)
ok "$bad" "the tracer's archive: every location balanced"
site() { echo "$1@mpi_phases.c:$(marker_line "$SRC" "$2")"; }
check_burst() { # from-region from-marker to-region to-marker count
    name="$(site "$1" "$2") -> $(site "$3" "$4")"
    got=$(awk -F'\t' -v n="$name" '$1 == "region" && $2 == n { s += $5 } END { print s + 0 }' real1.txt)
    [ "$got" -eq "$5" ]
    ok $? "burst '$name': $got instances (want $5)"
}
check_burst MPI_Waitall waitall_halo MPI_Allreduce allreduce_residual $((2 * ITER))
check_burst MPI_Allreduce allreduce_residual MPI_Allreduce allreduce_convergence $((2 * ITER))
# after each iteration but the last and those ending with the broadcast (10, 20)
check_burst MPI_Allreduce allreduce_convergence MPI_Irecv irecv_left $((2 * (ITER - 1 - 2)))
check_burst MPI_Isend isend_left MPI_Waitall waitall_halo $((2 * ITER))
cd / && rm -rf "$dir"

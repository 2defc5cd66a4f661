# fold_example.sh: end to end, tracer and hcafold on the MPI example: its
# iteration (a user region) folds into bands that name the phase functions in
# the order and at the times its code gives them; the compute burst between
# MPI_Waitall and MPI_Allreduce runs phase_update; and page faults, caused only
# in phase_norm (-p), rise there and nowhere else.
. "$(dirname "$0")/lib.sh"
FOLD="$BUILD/bin/hcafold"
dir=$(fresh_dir)
cd "$dir" || exit 1
# iterations of 4 times the default work (-s, and 4 times the fresh pages), a
# quarter as many: the default phase_norm (1.7 ms of CPU, then 4 MiB of
# faults) is shorter than a time slice of a loaded machine, so the waits of
# a preempted partner in the Allreduces around it move it in the iteration by
# more than its length. Folded, it held barely half of the samples where it
# ran (band purity at most 0.52-0.71, 0.5 makes a band) and in 11 of 56 runs
# with the ranks at 13-53 % of a CPU (some beside a memory hog) no band at all
# (#4 and #9 failed with nothing wrong); 4 times longer, purity 0.70-0.95 in 21
# runs interleaved with 21 of the default, and 4 times the samples per instance
# for the code paths
traced_mpirun 2 "$EX/mpi_phases" -q -n 62 -s 1400000 -p 16 > out 2> err
ok $? "traced run of the example with fresh pages in phase_norm"
trace=$(the_trace)
"$FOLD" -f json,csv,png "$trace" > summary.txt 2> fold.err
ok $? "hcafold folds the traced example"
sed -n '1,16p' summary.txt | sed 's/^/# /'
fold_dir=${trace%.otf2}.fold
# on a loaded machine its CPU times may form duration groups: the first file (files
# are numbered by total time) is the group with the most time
bands=$(ls "$fold_dir"/*-iteration.bands.csv "$fold_dir"/*-iteration_duration_group_*.bands.csv 2>/dev/null |
    sort | head -1)
check "the user region 'iteration' is folded" test -f "$bands"
# bands at the depth of the phase functions: stencil first, then update, then
# norm (its helper touch_fresh_pages is inlined into it and names the frame
# where wall-clock samples find the faulting thread); a function's share is
# summed over its bands at that depth (a wait in an Allreduce beside
# phase_norm can cut its band in pieces) and counted from 0.04
depth=$(awk -F, 'NR == 2 { print $7 }' "$bands")
order=$(awk -F, -v d="$depth" 'NR > 1 && $7 == d && $4 ~ /^(phase_|touch_fresh_pages$)/ {
        f = ($4 == "touch_fresh_pages") ? "phase_norm" : $4
        if (!(f in share)) seen[++k] = f
        share[f] += $3 }
    END { for (i = 1; i <= k; i++) if (share[seen[i]] >= 0.04) printf "%s ", seen[i] }' "$bands")
ok $([ "$order" = "phase_stencil phase_update phase_norm " ]; echo $?) \
    "iteration: bands in code order: phase_stencil, phase_update, phase_norm ($order)"
stencil=$(awk -F, 'NR > 1 && $4 == "phase_stencil" { print $1, $2; exit }' "$bands")
ok "$(echo "$stencil" | awk '{ print ($1 <= 0.05 && $2 >= 0.15 && $2 <= 0.6) ? 0 : 1 }')" \
    "iteration: phase_stencil opens the iteration ($stencil)"
burst=$(ls "$fold_dir"/*mpi_waitall*mpi_allreduce*.bands.csv 2>/dev/null | head -1)
awk -F, 'NR > 1 && $4 == "phase_update" && $3 >= 0.9 { found = 1 } END { exit !found }' "$burst"
ok $? "the burst MPI_Waitall -> MPI_Allreduce runs phase_update throughout"
# the bursts' summary bands name the phase functions, not the C library's start
! grep -q '__libc_start_main\|+0x' summary.txt
ok $? "no __libc_start_main or +0x in the summary"
awk '/^ *[0-9]+\. MPI_Waitall@.* -> MPI_Allreduce@/ { on = 1; next } /^ *[0-9]+\. / { on = 0 }
     on && /^    source .* phase_update / { found = 1 } END { exit !found }' summary.txt
ok $? "the summary names phase_update as the burst MPI_Waitall -> MPI_Allreduce's source"
# page faults: mean rate inside the phase_norm band vs inside phase_stencil's
curves=${bands%.bands.csv}.curves.csv
# (from the first of its bands at the depth drawn to the end of the last)
norm=$(awk -F, -v d="$depth" 'NR > 1 && $4 ~ /^(phase_norm|touch_fresh_pages)$/ && $7 == d {
        if (lo == "") lo = $1
        hi = $2 }
    END { if (lo != "") print lo, hi }' "$bands")
ratio=$(awk -F, -v lo="${norm% *}" -v hi="${norm#* }" -v slo="${stencil% *}" -v shi="${stencil#* }" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == "rate_page-faults") c = i; next }
    c && $1 >= lo && $1 <= hi { a += $c; na++ }
    c && $1 >= slo && $1 <= shi { b += $c; nb++ }
    END { if (!na || !nb) print 0; else print (a / na) / ((b / nb) + 1) }' "$curves")
ok "$(echo "$ratio" | awk '{ print ($1 >= 10) ? 0 : 1 }')" \
    "page faults rise in phase_norm (rate there / in phase_stencil = $ratio)"
check "the plot of the iteration is rendered" test -s "${bands%.bands.csv}.png"
cd / && rm -rf "$dir"

# OpenMP: each thread's share of a parallel region folds as one region, its
# stacks cut at the outlined function, so master and workers line up
dir=$(fresh_dir)
cd "$dir" || exit 1
OMP_NUM_THREADS=2 LD_PRELOAD="$PRELOAD" "$EX/omp_phases" 150 > out 2> err
ok $? "traced OpenMP example"
"$FOLD" -f json "$(the_trace)" > summary.txt 2> fold.err
ok $? "hcafold folds the OpenMP example"
# (on a loaded machine its CPU times may form duration groups: the first one)
grep -q '^ *1\. main\._omp_fn\.[0-9]* \((duration group [0-9]* of [0-9]*) \)\{0,1\}\[openmp\]' summary.txt
ok $? "the parallel region is the first region, of kind openmp"
awk '/^ *1\. /{ on = 1; next } /^ *2\. /{ on = 0 } on && /source .* work .*called from main\._omp_fn/ { found = 1 } END { exit !found }' summary.txt
ok $? "its source bands name the loop's function 'work' inside the outlined function"
cd / && rm -rf "$dir"

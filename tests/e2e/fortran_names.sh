# fortran_names.sh: end-to-end test of the names of Fortran code
# (tests/fortran_app.f90, an MPI+OpenMP time step of a module's two procedures,
# each an OpenMP loop): gfortran's module procedures (__stages_MOD_stage_one) are
# shown as stages::stage_one, their OpenMP outlined bodies as
# stages::stage_one._omp_fn.0, the symbol kept as the canonical name; no
# "_MOD_" in the trace's names nor in hcafold's summary; the two bursts between
# the same MPI_Allreduce call site (stages::exchange), reached through
# stage_one and stage_two, are two regions with two names, each saying through
# which stage ("... via stages::stage_two"). Output and exit code unchanged.
. "$(dirname "$0")/lib.sh"
APP="$BUILD/tests/fortran_app"
[ -x "$APP" ] || APP="$TOP/build/tests/fortran_app"
SRC="$TOP/tests/fortran_app.f90"
HCAFOLD="$BUILD/bin/hcafold"
if [ ! -x "$APP" ]; then
    echo "ok 1 # SKIP no Fortran MPI compiler (Debian package gfortran): $APP not built"
    exit 0
fi
STEPS=60
dir=$(fresh_dir)
cd "$dir" || exit 1
export OMP_NUM_THREADS=2
plain_mpirun 2 "$APP" $STEPS > plain.out 2> plain.err
plain_rc=$?
HCATRACE_SAMPLING=2ms traced_mpirun 2 "$APP" $STEPS > traced.out 2> traced.err
traced_rc=$?
ok $((plain_rc != 0 || traced_rc != 0)) "both runs succeed ($plain_rc, $traced_rc)"
check "stdout identical with and without the tracer" cmp plain.out traced.out
trace=$(the_trace)
check "otf2-print --silent -Werror accepts the trace" valid_otf2 "$trace"
"$TRACESTAT" "$trace" > stat.txt
ok $? "the trace reads back"

# ---- the trace's names ----------------------------------------------------------
omp_line() { grep -n '^ *!\$omp parallel do' "$SRC" | sed -n "$1p" | cut -d: -f1; }
# gfortran gives the call of the outlined body the directive's line or the one
# before it (the reduction variable's initialization), depending on the code
for k in 1:one 2:two; do
    i=${k%%:*}; stage=stage_${k#*:}; line=$(omp_line "$i")
    grep -q "^callsite stages::$stage\._omp_fn\.0 stages::$stage [^ ]*fortran_app.f90:\($line\|$((line - 1))\) " stat.txt
    ok $? "the OpenMP loop of stages::$stage is region stages::$stage._omp_fn.0, called at its directive's line ($line)"
done
grep -q '^stack [0-9]* .*stages::stage_two@[^ ]*fortran_app.f90:[0-9]* < fortran_app@' stat.txt
ok $? "sampled stacks name the module procedure stages::stage_two, called from the program"
ok "$(grep -c '_MOD_' stat.txt)" "no name in the trace's regions, call sites and stacks carries gfortran's _MOD_"
otf2-print -G "$trace" > defs.txt 2>&1
grep -q '^REGION .* Name: "stages::stage_one" <[0-9]*> (Aka. "__stages_MOD_stage_one" <[0-9]*>)' defs.txt
ok $? "the symbol is the module procedure's canonical name"
grep -q '^REGION .* Name: "stages::stage_two._omp_fn.0" <[0-9]*> (Aka. "__stages_MOD_stage_two._omp_fn.0" <[0-9]*>), Descr.: "OpenMP construct"' defs.txt
ok $? "the symbol is the OpenMP region's canonical name"

# ---- hcafold's names --------------------------------------------------------------
"$HCAFOLD" --min-samples 5 -o fold "$trace" > summary.txt 2> fold.err
rc=$?
ok $((rc != 0 && rc != 4)) "hcafold reads the trace (exit $rc)"
ok "$(cat summary.txt fold.err | grep -c '_MOD_')" "no _MOD_ in hcafold's summary"
grep -q 'stages::stage_[a-z]*\._omp_fn\.0' summary.txt
ok $? "hcafold's summary names the OpenMP regions stages::stage_*._omp_fn.0"
allreduce=$(grep -n 'call MPI_Allreduce' "$SRC" | head -1 | cut -d: -f1)
burst="MPI_Allreduce@fortran_app.f90:$allreduce -> MPI_Allreduce@fortran_app.f90:$allreduce"
# the names, whether folded or skipped: under ASan stage_two's short burst
# (0.3 ms) sometimes gets fewer than --min-samples samples and is listed skipped
names=$( (grep "^ *[0-9]*\. $burst" summary.txt; sed -n '/^skipped:/,$p' summary.txt | grep "^ *$burst") |
    sed 's/^ *[0-9]*\. //; s/^ *//; s/: [0-9.]* s, .*//; s/ (duration group.*//; s/ \[burst\]$//' | sort -u)
ok $(( $(echo "$names" | grep -c .) != 2 )) "two regions between the Allreduce of stages::exchange, named apart: $(echo "$names" | tr '\n' ';')"
for stage in stage_one stage_two; do
    echo "$names" | grep -qx "$burst via stages::$stage"
    ok $? "the burst that opens in stages::$stage says so (via stages::$stage)"
done

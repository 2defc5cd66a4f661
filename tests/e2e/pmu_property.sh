#!/bin/sh
# pmu_property.sh: the trace's HCATRACE::PMU is the name libpfm4's pfm_get_pmu_info gives the
# core PMU it detects (asked independently here, through python3 ctypes), also under
# LIBPFM_FORCE_PMU; without a model only rank 0, which writes the property, loads libpfm4
# (the dynamic linker's LD_DEBUG=files log of each rank names what it loaded), also when the
# launcher's environment did not name rank 0 (it detects the PMU as it writes the name), and with
# HCATRACE_MODEL=auto every rank does (its packing needs the PMU) and chooses by it.
. "$(dirname "$0")/lib.sh"
RUN="$EX/mpi_ring"
NP=4

prop() { "$TRACESTAT" -p "$1" "$2"; } # NAME ARCHIVE: one property, verbatim

# libpfm4's core PMU, as the tracer should find it: the first present one of type CORE
libpfm_core_pmu() {
    python3 - <<'EOF'
import ctypes
class Info(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("desc", ctypes.c_char_p), ("size", ctypes.c_size_t),
                ("pmu", ctypes.c_int), ("type", ctypes.c_int), ("nevents", ctypes.c_int),
                ("first_event", ctypes.c_int), ("max_encoding", ctypes.c_int), ("num_cntrs", ctypes.c_int),
                ("num_fixed_cntrs", ctypes.c_int), ("flags", ctypes.c_uint)]
try:
    pfm = ctypes.CDLL("libpfm.so.4")
except OSError:
    print("none")
    raise SystemExit
name = "none"
if pfm.pfm_initialize() == 0:
    for p in range(0, 2048):
        info = Info()
        info.size = ctypes.sizeof(Info)
        if pfm.pfm_get_pmu_info(p, ctypes.byref(info)) == 0 and info.flags & 1 and info.type == 1:
            name = info.name.decode()
            break
print(name)
EOF
}

# RUN traced at NP ranks with the dynamic linker's log per rank in ./ld.PID; then
# how many ranks loaded libpfm.so.4, in ./loaded
traced_logged() {
    traced_mpirun $NP -x LD_DEBUG=files -x LD_DEBUG_OUTPUT="$PWD/ld" "$@" $RUN > out 2> err
    echo $? > rc
    ranks=$(ls ld.* 2> /dev/null | wc -l)
    loaded=$(grep -l 'file=libpfm\.so\.4 ' ld.* 2> /dev/null | wc -l)
    echo "$loaded" > loaded
    echo "$ranks" > ranks
}

base=$(fresh_dir)
cd "$base" || exit 1
plain_mpirun $NP $RUN > plain.out 2> /dev/null
echo $? > plain.rc

# ---- 1. the default counters: rank 0 alone loads libpfm4 -----------------------------
dir=$(fresh_dir)
cd "$dir" || exit 1
want=$(libpfm_core_pmu)
traced_logged
ok $(($(cat rc) != $(cat "$base/plain.rc"))) "default: exit code kept ($(cat rc))"
check "default: stdout unchanged" cmp "$base/plain.out" out
ok $(($(cat ranks) != NP)) "default: a log of the dynamic linker from each of the $NP ranks ($(cat ranks))"
ok $(($(cat loaded) != 1)) "default: libpfm4 loaded by rank 0 alone ($(cat loaded) of $NP ranks)"
trace=$(the_trace)
got=$(prop HCATRACE::PMU "$trace")
[ -n "$got" ] && [ "$got" = "$want" ]
ok $? "default: HCATRACE::PMU is libpfm4's core PMU ($got, libpfm4 says $want)"

# ---- 2. LIBPFM_FORCE_PMU: the forced PMU, rank 0 alone --------------------------------
for forced in skl amd64_fam17h_zen2; do
    dir=$(fresh_dir)
    cd "$dir" || exit 1
    want=$(LIBPFM_FORCE_PMU=$forced libpfm_core_pmu)
    traced_logged -x LIBPFM_FORCE_PMU=$forced
    ok $(($(cat rc) != $(cat "$base/plain.rc"))) "forced $forced: exit code kept"
    ok $(($(cat loaded) != 1)) "forced $forced: libpfm4 loaded by rank 0 alone ($(cat loaded) of $(cat ranks) ranks)"
    trace=$(the_trace)
    got=$(prop HCATRACE::PMU "$trace")
    [ "$got" = "$want" ] && [ "$got" = "$forced" ]
    ok $? "forced $forced: HCATRACE::PMU is the forced PMU ($got, libpfm4 says $want)"
done

# ---- 3. HCATRACE_MODEL=auto: every rank detects the PMU, and all choose by it ---------
dir=$(fresh_dir)
cd "$dir" || exit 1
want=$(LIBPFM_FORCE_PMU=skl libpfm_core_pmu)
traced_logged -x LIBPFM_FORCE_PMU=skl -x HCATRACE_MODEL=auto
ok $(($(cat rc) != $(cat "$base/plain.rc"))) "model auto: exit code kept"
ok $(($(cat loaded) != NP)) "model auto: libpfm4 loaded by every rank ($(cat loaded) of $(cat ranks))"
trace=$(the_trace)
got=$(prop HCATRACE::PMU "$trace")
[ "$got" = "$want" ]
ok $? "model auto: HCATRACE::PMU is the forced PMU ($got)"
said=$(grep -c "^hcatrace: model [^ ]* \(for PMU $want (HCATRACE_MODEL=auto)\|(HCATRACE_MODEL=auto: no model for PMU $want)\)$" err)
ok $((said < 1)) "model auto: the model chosen by PMU $want ($said lines say it)"

# ---- 4. a rank 0 the launcher's environment did not name (PMI_RANK=3, a singleton) ---
# the process defers the detection at load and does it as it writes the property
dir=$(fresh_dir)
cd "$dir" || exit 1
want=$(libpfm_core_pmu)
PMI_RANK=3 LD_PRELOAD="$PRELOAD" $RUN > out 2> err
rc=$?
ok $((rc != $(cat "$base/plain.rc"))) "rank 0 named 3 at load: exit code kept ($rc)"
trace=$(the_trace)
got=$(prop HCATRACE::PMU "$trace")
[ -n "$got" ] && [ "$got" = "$want" ]
ok $? "rank 0 named 3 at load: HCATRACE::PMU is libpfm4's core PMU all the same ($got)"

# fold_cg.sh: end to end, the shape of a conjugate-gradient solver
# (tests/cg_app.c: its structure in its header comment), traced with 2 ranks
# and 2 OpenMP threads and folded at defaults; checked in fold.json and the
# summary:
#   - the burst from the halo's MPI_Waitall (in exchange_halo) to the
#     reduction's MPI_Allreduce (in global_sum) is cut at the solver: its
#     bands name exchange_halo and cg_calc_w, never the program's entry
#     (`_start`: stacks cut at the opening call's function were mixed with
#     stacks cut nowhere);
#   - code of a library without symbols (Debian's libgomp: its barrier and
#     team internals, where the 2 threads wait) is named as the library
#     region, "libgomp.so.1 (OpenMP runtime)", never "lib+0xOFFSET";
#   - no __libc_start_main, `_start` or "+0x" in the summary.
. "$(dirname "$0")/lib.sh"
FOLD="$BUILD/bin/hcafold"
dir=$(fresh_dir)
cd "$dir" || exit 1
HCATRACE_SAMPLING=2ms OMP_NUM_THREADS=2 traced_mpirun 2 "$BUILD/tests/cg_app" -q -n 300 > out 2> err
ok $? "traced run of cg_app with 2 ranks"
"$FOLD" -f json "$(the_trace)" > summary.txt 2> fold.err
ok $? "hcafold folds it"
json=$(ls -d hcatrace-*/traces.fold)/fold.json
python3 - "$json" > checks 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
def shown(r):  # the bands of the depth drawn: the first ones
    bands = r.get("source_bands", [])
    return [b for b in bands if b["depth"] == bands[0]["depth"]] if bands else []
def names(r):
    return [b["function"] for b in shown(r) if b["share"] >= 0.04]
halo = [r for r in doc["regions"] if "MPI_Waitall" in r["key"]["open"] and "MPI_Allreduce" in r["key"]["close"]]
print("ok" if len(halo) == 1 else "not ok", "the halo-to-reduction burst is one region:", [r["name"] for r in halo])
got = names(halo[0]) if halo else []
print("ok" if "exchange_halo" in got and "cg_calc_w" in got else "not ok",
      "its bands name exchange_halo and cg_calc_w:", got)
bands = [b["function"] for r in doc["regions"] for b in r.get("source_bands", [])]
print("ok" if "_start" not in bands else "not ok", "no band names _start:", bands.count("_start"))
raw = sorted({b for b in bands if "+0x" in b})
print("ok" if not raw else "not ok", "no band is named lib+0xOFFSET:", raw[:3])
print("ok" if "libgomp.so.1 (OpenMP runtime)" in bands else "not ok",
      "the OpenMP runtime's unnamed code is one library region:", sorted({b for b in bands if "libgomp" in b}))
PY
checks_as_tap checks
grep -q 'not ok' checks && sed -n '1,30p' summary.txt | sed 's/^/# /'
! grep -q '__libc_start_main\|_start \|+0x' summary.txt
ok $? "no __libc_start_main, _start or +0x in the summary"
cd / && rm -rf "$dir"

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
#     team internals, where the 2 threads wait) is never "lib+0xOFFSET";
#   - the master thread's samples in the OpenMP runtime around the body it
#     runs (GOMP_parallel, waiting at the join for the other thread) are the
#     body's: under cg_calc_w and cg_calc_ur the bands name their outlined
#     bodies (cg_calc_w._omp_fn.0, ...), never GOMP_parallel or libgomp (they
#     alternated with the body, and the calc_ur burst drew `GOMP_parallel`
#     0.20-0.70 as its band);
#   - the burst from the r.r reduction to the halo's first MPI call, made in
#     send_recv_down on rank 0 and in send_recv_up on rank 1 (a helper per
#     neighbour, as CloverLeaf's), is one region across the ranks;
#   - no __libc_start_main, `_start` or "+0x" in the summary;
# and its Fortran twin (tests/cg_app.f90) with 1 rank: the bursts between
# the one MPI_Allreduce of allsum and itself are two regions, told apart by
# the line of cg_solve that calls allsum (the calc_ur path ends at the
# ALLSUM_RR call, the calc_p + calc_w path at the ALLSUM_PW call), each key
# with one instance per iteration, and no folded region's bands mix calc_ur with
# calc_w (gfortran's module procedures: every frame of one procedure was one
# calling-context node, so both calls of allsum were one call site).
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
under = [(b["caller"], b["function"]) for r in doc["regions"] if r["kind"] == "burst"
         for b in r.get("source_bands", []) if b.get("caller") in ("cg_calc_w", "cg_calc_ur")]
wrong = sorted({f for c, f in under if not f.startswith(c + "._omp_fn.")})
print("ok" if under and not wrong else "not ok",
      "in the bursts, bands under cg_calc_w and cg_calc_ur name their OpenMP bodies, never the runtime:",
      sorted({f for c, f in under}), "wrong:", wrong)
keys = [(r["name"], r["instances"]["found"]) for r in doc["regions"]]
keys += [(s["name"], s["instances_found"]) for s in doc.get("skipped", [])]
# (the burst from the first reduction, before the loop, to the first exchange: one instance per rank)
to_halo = sorted({n for n, found in keys if "-> MPI_Irecv@cg_app.c:" in n and found >= 10})
print("ok" if len(to_halo) == 1 else "not ok",
      "the burst from the r.r reduction to the halo's first message (in send_recv_down on rank 0,"
      " send_recv_up on rank 1) is one region:", to_halo)
PY
checks_as_tap checks
grep -q 'not ok' checks && sed -n '1,30p' summary.txt | sed 's/^/# /'
! grep -q '__libc_start_main\|_start \|+0x' summary.txt
ok $? "no __libc_start_main, _start or +0x in the summary"
cd / && rm -rf "$dir"

[ -x "$BUILD/tests/cg_app_f" ] || { echo "# no Fortran MPI compiler: the Fortran twin is skipped"; exit 0; }
dir=$(fresh_dir)
cd "$dir" || exit 1
iterations=400
HCATRACE_SAMPLING=2ms OMP_NUM_THREADS=1 traced_mpirun 1 "$BUILD/tests/cg_app_f" "$iterations" > out 2> err
ok $? "traced run of cg_app_f with 1 rank"
"$FOLD" -f json "$(the_trace)" > summary.txt 2> fold.err
ok $? "hcafold folds it"
json=$(ls -d hcatrace-*/traces.fold)/fold.json
pw=$(grep -n 'call allsum.*! ALLSUM_PW$' "$TOP/tests/cg_app.f90" | cut -d: -f1)
rr=$(grep -n 'call allsum.*! ALLSUM_RR$' "$TOP/tests/cg_app.f90" | cut -d: -f1)
python3 - "$json" "$iterations" "$pw" "$rr" > checks 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
iterations, pw, rr = int(sys.argv[2]), sys.argv[3], sys.argv[4]
solver = "MPI_Allreduce@cg_app.f90:36 -> MPI_Allreduce@cg_app.f90:36"
found = {r["name"]: r["instances"]["found"] for r in doc["regions"] if r["name"].startswith(solver)}
found.update({s["name"]: s["instances_found"] for s in doc.get("skipped", []) if s["name"].startswith(solver)})
by_line = {}  # the line of cg_solve calling allsum (a key's paths and groups summed)
for n, v in found.items():
    line = n.split(" via cg_solver::cg_solve@cg_app.f90:")[-1].split(" ")[0] if " via " in n else "?"
    by_line[line] = by_line.get(line, 0) + v
print("ok" if sorted(by_line) == sorted([pw, rr]) else "not ok",
      "the two paths between the same MPI_Allreduce are two region keys, by the line calling allsum:", sorted(found))
good = len(by_line) == 2 and all(0.9 * iterations <= v <= 1.1 * iterations for v in by_line.values())
print("ok" if good else "not ok", "each key holds one instance per iteration:", by_line)
mixed = []
for r in doc["regions"]:
    f = {b["function"] for b in r.get("source_bands", []) if b["share"] >= 0.04}
    if "cg_kernels::calc_ur" in f and "cg_kernels::calc_w" in f:
        mixed.append(r["name"])
print("ok" if not mixed else "not ok", "no region's bands mix calc_ur with calc_w:", mixed)
PY
checks_as_tap checks
grep -q 'not ok' checks && sed -n '1,30p' summary.txt | sed 's/^/# /'
cd / && rm -rf "$dir"

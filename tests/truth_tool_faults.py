#!/usr/bin/env python3
"""truth_tool_faults.py: what the trace of tests/truth_app holds beyond the
program's own record of its instances (issue 17: the default fold's
page-fault error).

    truth_tool_faults.py TRACE_OTF2 TRUTH_FILE... [--max-beyond F]
                         [--program-faults N --max-tracer-faults F]

Each truth file (PREFIX.RANK, truth_app's format: "I iter" then "R t_ns
cpu_ns faults phase task_clock_ns" records) is matched with the trace's
location of that MPI rank: a record instance with the innermost enter before
its first record and the leave after its last. Printed per rank: the
instances matched; the page faults of the trace's instances (leave's value
less the enter's) beyond the record's (first to last record), summed and per
instance (the region's two ends: the record's first and last records lie
inside the trace's instance, so this is what the trace holds at the ends;
the tracer's faults between them are in the record too, the thread's
getrusage counts them); the tracer's own time inside the instances (tool:time, tool:cpu_time) as a
part of their time; the samples per instance and, in phase_faults (the record's phase 1),
the page faults between two samples (the fault bursts a fold sees per cell
of its instances).

The record in the program's own time, as hcafold's default fold sees the
program, is tests/truth_tool_time.py's.

With --max-beyond F, the exit status is 1 (a line starting with "FAIL") when
a rank's instances hold more than F page faults per instance beyond the
record (at the region's ends); with --program-faults N and
--max-tracer-faults F, when the trace's instances hold more than F faults
per instance beyond the N fresh pages the program touches in each (truth_app:
480, its FAULT_BURSTS x FAULT_PAGES): the tracer's own faults anywhere in
the instances (a tracer that touched one fresh page per sample read 488.96
per instance). Else 0; 2 when the trace or the records cannot be read or no
instance matches.
"""
import bisect
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the reader and the boundary kinds of tracer_waits.py (which exits 2 without python3-otf2)
from tracer_waits import ENTERS, LEAVES, otf2  # noqa: E402
from truth_fold import read_truth  # noqa: E402


def read_trace(path):
    """{rank: location facts}: boundaries [(ns, 'E'|'L', page faults)], samples [(ns, page faults)],
    tool totals [(ns, wall, cpu)]"""
    locs = {}
    with otf2.reader.open(path) as r:
        ns = 1e9 / r.definitions.clock_properties.timer_resolution
        state = {}
        for loc, e in r.events:
            s = state.get(loc)
            if s is None:
                rank = int(loc.group.name.split()[-1]) if loc.group.name.split()[-1].isdigit() else len(locs)
                if rank in locs:  # threads other than the first: not truth_app's
                    s = state[loc] = None
                    continue
                s = state[loc] = {"bounds": [], "samples": [], "tool": [], "pf": None}
                locs[rank] = s
            if s is None:
                continue
            kind = type(e).__name__
            t = e.time * ns
            if kind == "Metric":
                names = [m.name for m in (getattr(e.metric, "members", None) or [])]
                if "page-faults" in names:
                    s["pf"] = (t, e.values[names.index("page-faults")])
                elif "tool:time" in names:
                    s["tool"].append((t, e.values[names.index("tool:time")], e.values[names.index("tool:cpu_time")]))
            elif kind in ENTERS + LEAVES or kind == "CallingContextSample":
                pf = s["pf"][1] if s["pf"] and s["pf"][0] == t else None
                if kind == "CallingContextSample":
                    s["samples"].append((t, pf))
                else:
                    s["bounds"].append((t, "E" if kind in ENTERS else "L", pf))
    return locs


def tool_at(tool, times, t):
    """(wall, cpu) of the tracer before time t on a location"""
    i = bisect.bisect_right(times, t) - 1
    if i < 0:
        return (0, 0)
    if i + 1 >= len(tool):
        return tool[i][1:]
    return tuple(min(tool[i + 1][k], tool[i][k] + (t - tool[i][0])) for k in (1, 2))


def enclosing(bounds, btimes, t0, t1):
    """the enter at or before t0 and the leave at or after t1 (the innermost pair), or None"""
    i = bisect.bisect_right(btimes, t0) - 1
    while i >= 0 and bounds[i][1] != "E":
        i -= 1
    j = bisect.bisect_left(btimes, t1)
    while j < len(bounds) and bounds[j][1] != "L":
        j += 1
    if i < 0 or j >= len(bounds):
        return None
    return bounds[i], bounds[j]


def report(rank, s, instances):
    btimes = [b[0] for b in s["bounds"]]
    ttimes = [x[0] for x in s["tool"]]
    stimes = [x[0] for x in s["samples"]]
    n, beyond, fold_pf, truth_pf, tool_w, tool_c, wall, nsamp = 0, 0, 0, 0, 0, 0, 0, 0
    burst_gaps = []
    for rec in instances:  # truth_fold.read_truth's: (t, cpu, faults, phase, thread_cpu), two records or more
        m = enclosing(s["bounds"], btimes, rec[0][0], rec[-1][0])
        if m is None or m[0][2] is None or m[1][2] is None:
            continue
        (e0, _, f0), (e1, _, f1) = m
        n += 1
        fold_pf += f1 - f0
        truth_pf += rec[-1][2] - rec[0][2]
        beyond += (f1 - f0) - (rec[-1][2] - rec[0][2])
        a, b = tool_at(s["tool"], ttimes, e0), tool_at(s["tool"], ttimes, e1)
        tool_w += b[0] - a[0]
        tool_c += b[1] - a[1]
        wall += e1 - e0
        lo, hi = bisect.bisect_left(stimes, e0), bisect.bisect_right(stimes, e1)
        nsamp += hi - lo
        ph = [x for x in s["samples"][lo:hi] if x[1] is not None]
        ph1 = [x for x in ph if any(r[3] == 1 for r in rec if r[0] <= x[0]) and
               not any(r[3] >= 2 for r in rec if r[0] <= x[0])]
        burst_gaps += [b2[1] - b1[1] for b1, b2 in zip(ph1, ph1[1:])]
    if not n:
        print("rank %d: no instance matched" % rank)
        return None
    print("rank %d: %d instances; page faults trace %.2f, record %.2f per instance, beyond the record %d "
          "(%.3f per instance, %.3f %%); tracer's time %.2f %% of the instances' (CPU %.2f %%); "
          "%.2f samples per instance; page faults between samples in phase_faults: mean %.1f "
          "(%d pairs)" % (
              rank, n, fold_pf / n, truth_pf / n, beyond, beyond / n, 100.0 * beyond / max(truth_pf, 1),
              100.0 * tool_w / wall, 100.0 * tool_c / wall, nsamp / n,
              sum(burst_gaps) / len(burst_gaps) if burst_gaps else float("nan"), len(burst_gaps)))
    return beyond / n, fold_pf / n


def main(argv):
    args, limits = [], {}
    i = 1
    while i < len(argv):
        if argv[i] in ("--max-beyond", "--program-faults", "--max-tracer-faults") and i + 1 < len(argv):
            limits[argv[i][2:]] = float(argv[i + 1])
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        locs = read_trace(args[0])
    except Exception as e:  # noqa: BLE001 (the reader's errors have no common class)
        sys.stderr.write("truth_tool_faults: %s: %s\n" % (args[0], e))
        return 2
    status, matched = 0, 0
    for path in args[1:]:
        rank = int(path.rsplit(".", 1)[-1])
        if rank not in locs:
            print("rank %d: not in the trace" % rank)
            continue
        instances = read_truth([path])
        per = report(rank, locs[rank], instances)
        if per is None:
            continue
        matched += 1
        beyond, faults = per
        if "max-beyond" in limits and beyond > limits["max-beyond"]:
            print("FAIL: rank %d: %.3f page faults per instance beyond the record, above %g" % (
                rank, beyond, limits["max-beyond"]))
            status = 1
        if "program-faults" in limits and "max-tracer-faults" in limits and \
                faults - limits["program-faults"] > limits["max-tracer-faults"]:
            print("FAIL: rank %d: %.3f page faults per instance beyond the program's %g, above %g" % (
                rank, faults - limits["program-faults"], limits["program-faults"], limits["max-tracer-faults"]))
            status = 1
    return status if matched else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

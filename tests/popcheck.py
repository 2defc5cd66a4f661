#!/usr/bin/python3
"""popcheck.py: the POP efficiency metrics of an hcatrace trace, computed with
the OTF2 Python bindings (python3-otf2) independently of hcafold, for the
end-to-end tests. A process is a location with a ProgramBegin event; its
elapsed time runs from its first to its last event; its MPI time is the sum of
its outermost calling contexts whose region has the MPI paradigm; the rest is
compute. Prints: load_balance comm_efficiency parallel_efficiency mpi_share."""
import sys

import otf2


def main(path):
    first, last, mpi, depth, entered, process = {}, {}, {}, {}, {}, set()
    with otf2.reader.open(path) as trace:
        for loc, ev in trace.events:
            first.setdefault(loc, ev.time)
            last[loc] = ev.time
            if isinstance(ev, otf2.events.ProgramBegin):
                process.add(loc)
            elif isinstance(ev, otf2.events.CallingContextEnter):
                if ev.calling_context.region.paradigm == otf2.Paradigm.MPI:
                    if depth.get(loc, 0) == 0:
                        entered[loc] = ev.time
                    depth[loc] = depth.get(loc, 0) + 1
            elif isinstance(ev, otf2.events.CallingContextLeave):
                if ev.calling_context.region.paradigm == otf2.Paradigm.MPI and depth.get(loc, 0) > 0:
                    depth[loc] -= 1
                    if depth[loc] == 0:
                        mpi[loc] = mpi.get(loc, 0) + ev.time - entered[loc]
    if not process:
        sys.exit("popcheck: no process (ProgramBegin) in the trace")
    elapsed = {p: last[p] - first[p] for p in process}
    compute = [elapsed[p] - mpi.get(p, 0) for p in process]
    runtime = max(last[p] for p in process) - min(first[p] for p in process)
    mean, top = sum(compute) / len(compute), max(compute)
    lb, ce = mean / top, top / runtime
    share = sum(mpi.get(p, 0) for p in process) / sum(elapsed.values())
    print("%.6f %.6f %.6f %.6f" % (lb, ce, lb * ce, share))


if __name__ == "__main__":
    main(sys.argv[1])

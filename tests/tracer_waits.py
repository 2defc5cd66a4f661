#!/usr/bin/env python3
"""tracer_waits.py: the time the trace's compute bursts hold beyond a
program's own record of them, and how much of it the thread spent off its
CPU, for the truth comparisons of tests/e2e/fold_stages.sh.

    tracer_waits.py TRACE_OTF2 TRUTH_FILE

A program's record of a burst between two MPI collective calls
(tests/stages_app: B right after MPI_Allreduce returns, E right before it is
called; truth_bands.py's format, times of CLOCK_MONOTONIC, the trace's
clock) cannot hold the tracer's time at the burst's two ends: the samples
drained at the enter before its timestamp and at the leave after it
(instrument/hct_boundary.c). A fold that keeps the tracer's time holds it.
That time is on the CPU as a rule and leaves the CPU share as the record
has it; a drain that waits for the tracer's libdw worker (the first sight of
a large compilation unit's line table: libasan's asan_interceptors.cpp under
ASan, a wait of 43-80 ms) is off the CPU, and the fold's CPU share and rates are lower
than the record's by about that wait's part of the bursts' time.

Each record instance is matched with the burst of the first location (rank 0's
master thread) that holds it, from the leave after a collective's end to the
enter before the next one's begin: the burst's time less the record's is the
time beyond it; that less the growth of the burst's task-clock beyond the
growth of the record's CPU clock is the time off the CPU.

Prints "FRACTION OFF_MS BEYOND_MS TOTAL_MS LONGEST_MS MATCHED": the time off
the CPU beyond the record as a part of the matched bursts' time, that time,
the time beyond the record, the bursts' time, the longest off the CPU in one
burst, the instances matched. Exit status 2 when the trace or the record
cannot be read, the trace has no task-clock, or no instance matches.
"""
import bisect
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth_bands import read_truth  # noqa: E402

try:
    import otf2
except ImportError:
    sys.stderr.write("tracer_waits: python3-otf2 is not installed\n")
    sys.exit(2)

ENTERS = ("Enter", "CallingContextEnter")
LEAVES = ("Leave", "CallingContextLeave")


def bursts(trace):
    """[(t0, t1, task-clock at t0, at t1)] in ns: the first location's bursts between its MPI
    collective calls; None when it has no task-clock"""
    events, clock, first, ns = [], None, None, 1.0
    with otf2.reader.open(trace) as r:
        ns = 1e9 / r.definitions.clock_properties.timer_resolution
        for loc, e in r.events:
            if first is None:
                first = loc
            if loc != first:
                continue
            kind = type(e).__name__
            if kind == "Metric":
                for m, v in zip(getattr(e.metric, "members", None) or [], e.values):
                    if m.name == "task-clock":
                        clock = (e.time, v)
            elif kind in ENTERS + LEAVES + ("MpiCollectiveBegin", "MpiCollectiveEnd"):
                # a boundary's values are written at its time, just before it
                at = clock[1] if clock and clock[0] == e.time else None
                events.append((e.time * ns, kind, at))
    out, start = [], None
    for i, (t, kind, _) in enumerate(events):
        if kind == "MpiCollectiveEnd":
            start = next((events[j] for j in range(i + 1, len(events)) if events[j][1] in LEAVES), None)
        elif kind == "MpiCollectiveBegin" and start is not None:
            end = next((events[j] for j in range(i - 1, -1, -1) if events[j][1] in ENTERS), None)
            if end and end[0] >= start[0] and start[2] is not None and end[2] is not None:
                out.append((start[0], end[0], start[2], end[2]))
            start = None
    return out


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    try:
        found = bursts(argv[1])
        record = read_truth([argv[2]])
    except Exception as exc:  # the reader's own errors: one clear line, not a trace-back
        sys.stderr.write("tracer_waits: cannot read %s or %s: %s\n" % (argv[1], argv[2], exc))
        return 2
    starts = [b[0] for b in found]
    beyond = off = total = longest = 0.0
    matched = 0
    for t0, t1, _, pts in record:
        k = bisect.bisect_right(starts, t0) - 1
        if k < 0 or found[k][1] < t1:
            continue  # no burst holds it
        b0, b1, c0, c1 = found[k]
        extra = (b1 - b0) - (t1 - t0)
        # CLOCK_THREAD_CPUTIME_ID can run ahead of task-clock (the kernel's switch path)
        extra_cpu = max((c1 - c0) - (pts[-1][1] - pts[0][1]), 0.0)
        extra_off = min(max(extra - extra_cpu, 0.0), max(extra, 0.0))
        beyond += extra
        off += extra_off
        total += b1 - b0
        longest = max(longest, extra_off)
        matched += 1
    if not matched:
        sys.stderr.write("tracer_waits: no instance of %s inside a burst of %s\n" % (argv[2], argv[1]))
        return 2
    print("%.4f %.3f %.3f %.3f %.3f %d" % (off / total, off / 1e6, beyond / 1e6, total / 1e6, longest / 1e6, matched))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

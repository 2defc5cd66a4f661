#!/usr/bin/python3
"""truth_tool_time.py: the exact truth of tests/truth_app with the tracer's own
time taken out, as the trace says it was spent, so that hcafold's default fold
(which removes that time: docs/output.md, "Tool time") can be measured against
it (issue 17). Read with the python3-otf2 bindings (Debian package
python3-otf2), not with our reader.

    truth_tool_time.py TRACE.otf2 TRUTH_FILE... --out PREFIX

truth_app records (monotonic time, CPU time, page faults) every ~0.1 ms on
CLOCK_MONOTONIC, the trace's clock, while traced: its records hold the
tracer's time. The trace holds per location the tracer's wall and CPU totals
(`tool:time`, `tool:cpu_time`, docs/trace-format.md "Tool time") at every
region boundary and sample: the tracer's time before that timestamp. Between
two such events a and b of a location the tracer spent the difference of
their totals, and where within (a, b) it sits decides how much of it a record
there held:
  a is a sample:  its handler ran right after its timestamp (b's total holds
                  it; a wall-clock sample's delivery before b's timestamp,
                  a few us, goes with it);
  a is a leave:   the leave's drain of samples and its own work after its
                  timestamp;
  a is an enter:  the enter's work after its timestamp (before the program's
                  first record of the instance: the same for all of them) and
                  b's work before its timestamp (a sample's delivery, a
                  boundary's work, the drain before an enter's value): placed
                  at b's timestamp.
So the tracer's time before a time r of the location is a step function: the
totals at the last event at or before r, plus the whole difference to the
next event when that event (at or before r) was a sample or a leave. Each
record's time loses the tracer's wall time before it, its CPU times (perf's
task-clock and CLOCK_THREAD_CPUTIME_ID alike) the tracer's CPU time before
it; its page faults stay (the trace does not count the tracer's own faults).
What is taken out is the tracer's time since the file's first record (the
same for every record before it: a constant, which an instance's curves,
relative to its first record, do not hold).
The truth file of rank R (PREFIX.R) is matched with the location of MPI rank R
with the most events carrying those totals (truth_app is single-threaded). Writes PREFIX.R in the
format read (truth_fold.py, truth_bands.py read it unchanged).

Prints per rank the records written and the tracer's wall and CPU time taken
out of the records' instances (their first record to their last). Exit status
2 when the trace or a truth file cannot be read or the trace records no tool
time for a rank.
"""
import bisect
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth_fold import parse_args, split_lines  # noqa: E402

TOOL_TIME, TOOL_CPU = "tool:time", "tool:cpu_time"
AFTER_OWN_TIME = ("CallingContextSample", "CallingContextLeave", "Leave")


def tool_events(trace_path):
    """{rank: [(timestamp ns, tracer's wall ns before it, CPU ns before it, event kind)]}, the
    events that carry the tracer's totals on each rank's busiest such location, in time order"""
    import otf2  # only here: truth_fold.py and the others run without the bindings

    out, pending = {}, {}
    with otf2.reader.open(trace_path) as trace:
        props = trace.definitions.clock_properties
        ns = 1e9 / props.timer_resolution
        for location, event in trace.events:
            if isinstance(event, otf2.events.Metric):
                klass = event.metric
                if isinstance(klass, otf2.definitions.MetricInstance):
                    klass = klass.metric_class
                names = [m.name for m in getattr(klass, "members", None) or []]
                if TOOL_TIME in names and TOOL_CPU in names:
                    pending[location] = (event.time, event.values[names.index(TOOL_TIME)],
                                         event.values[names.index(TOOL_CPU)])
                continue
            tool = pending.pop(location, None)
            if tool is None or tool[0] != event.time:
                continue  # an event without the tracer's totals (they precede it at its timestamp)
            out.setdefault(location, []).append((int(round(event.time * ns)), int(tool[1]), int(tool[2]),
                                                 type(event).__name__))
    ranks = {}
    for location, evs in out.items():  # per rank its busiest location: truth_app's one thread
        group = location.group.name.rsplit(" ", 1)
        if len(group) == 2 and group[1].isdigit() and len(evs) > len(ranks.get(int(group[1]), [])):
            ranks[int(group[1])] = evs
    return ranks


def step_function(events):
    """(times, wall, cpu): the tracer's wall and CPU time before any time r of the location is
    wall[i], cpu[i] for the last i with times[i] <= r (the placement of the docstring)"""
    times, wall, cpu = [], [], []
    for i, (t, w, c, kind) in enumerate(events):
        if kind in AFTER_OWN_TIME and i + 1 < len(events):
            w, c = events[i + 1][1], events[i + 1][2]  # its own time right after its timestamp
        times.append(t)
        wall.append(w)
        cpu.append(c)
    return times, wall, cpu


def before(steps, r):
    """the tracer's (wall, CPU) ns before time r"""
    times, wall, cpu = steps
    i = bisect.bisect_right(times, r) - 1
    return (wall[i], cpu[i]) if i >= 0 else (0, 0)


def remove(path, steps, out_path):
    """writes the truth file path with the tracer's time taken out to out_path; returns (records,
    wall ns, CPU ns) taken out of the instances (first record to last). The time taken out is the
    tracer's since the file's first record: the tracer's CPU time before truth_app opened its
    task-clock (the tracer's start, long under ASan) is not in that clock, and taken out too it
    made the first instances' task-clock negative, which reads as "not recorded" (-1); a constant
    per location, which no instance's curves hold"""
    n, wall, cpu, first, base = 0, 0, 0, None, None
    with open(out_path, "w") as out:
        for p in split_lines(path):
            if p[0] == "R":
                t = int(p[1])
                w, c = before(steps, t)
                if base is None:
                    base = (w, c)
                w, c = w - base[0], c - base[1]
                if first is None:
                    first = (w, c)
                last = (w, c)
                p[1] = str(t - w)
                p[2] = str(int(p[2]) - c)
                if len(p) > 5 and int(p[5]) >= 0:
                    p[5] = str(int(p[5]) - c)
                n += 1
            elif p[0] == "I":
                if first is not None:
                    wall += last[0] - first[0]
                    cpu += last[1] - first[1]
                first = None
            out.write(" ".join(p) + "\n")
    if first is not None:
        wall += last[0] - first[0]
        cpu += last[1] - first[1]
    return n, wall, cpu


def main(argv):
    args, opts = parse_args(argv)
    if len(args) < 2 or "out" not in opts:
        sys.stderr.write(__doc__)
        return 2
    try:
        events = tool_events(args[0])
    except Exception as exc:  # the reader's own errors: one clear line, not a trace-back
        sys.stderr.write("truth_tool_time: cannot read %s: %s\n" % (args[0], exc))
        return 2
    for path in args[1:]:
        rank = int(path.rsplit(".", 1)[1])
        if not events.get(rank):
            sys.stderr.write("truth_tool_time: the trace records no tool time for rank %d\n" % rank)
            return 2
        n, wall, cpu = remove(path, step_function(events[rank]), "%s.%d" % (opts["out"], rank))
        print("rank %d: %d records, %.3f ms of the tracer's wall time and %.3f ms of its CPU time taken out of "
              "the instances" % (rank, n, wall / 1e6, cpu / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

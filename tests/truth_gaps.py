#!/usr/bin/python3
"""truth_gaps.py: how much of the tracer's own work lies inside a region's
instances of tests/truth_app, at their two ends, measured against the times
the program recorded itself (issue 17, "The drain out of the region"). Read
with the python3-otf2 bindings (Debian package python3-otf2), not with our
reader.

    truth_gaps.py TRACE.otf2 TRUTH_FILE... [--region NAME] [--max-end-ratio R]

truth_app takes its first record right after the region's begin marker and its
last right before its end marker, on CLOCK_MONOTONIC, the trace's clock. Per
instance (the n-th instance of the region on the location of MPI rank r
against the n-th of the truth file PREFIX.r):
  begin gap   the first record's time less the enter's timestamp: the begin
              marker's work after its timestamp (the region event, the call
              path), and the record's first system call;
  end gap     the leave's timestamp less the last record's time: the end
              marker's work before its timestamp, and the record's last
              system call;
  CPU excess  the task-clock between the enter and the leave in the trace
              less the truth's between its first and last records (both
              gaps' CPU time, with the counters' read).
Both markers run about the same code on either side of their timestamps, so
the two gaps are of the same size unless the end marker does more before its
timestamp: a drain of the thread's pending samples there (written before the
leave's time until this was fixed) made the end gap 3-7 times the begin gap
(6-17 times under ASan).
Only the instances with counter values at both ends count (read at the
boundary, instrument/hct_boundary.c); those without (an enter kept back by
thinning without a read of the counters: hct_thin_counters.c ends them) are
printed apart. Printed: the medians. With --max-end-ratio, exit 1 when the
median end gap exceeds R times the median begin gap; 2 on bad input.
"""
import os
import sys

import otf2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sample_cpu_bound import metric_values  # noqa: E402
from truth_fold import clock_of, parse_args, read_truth  # noqa: E402


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else float("nan")


def instances(trace_path, region):
    """{rank: [(enter ts, leave ts, task-clock at enter, at leave)]} of the region's instances; the
    task-clock None at an end without counter values (no Metric at its time)"""
    trace = otf2.reader.Reader(trace_path)
    out, state = {}, {}
    for location, event in trace.events:
        s = state.setdefault(location, {"tc": None, "open": None})
        if isinstance(event, otf2.events.Metric):
            values = metric_values(event)
            if "task-clock" in values:
                s["tc"] = (event.time, values["task-clock"])
            continue
        tc = s["tc"][1] if s["tc"] is not None and s["tc"][0] == event.time else None
        if isinstance(event, otf2.events.CallingContextEnter) and event.calling_context.region.name == region:
            s["open"] = (event.time, tc)
        elif isinstance(event, otf2.events.CallingContextLeave) and event.calling_context.region.name == region \
                and s["open"] is not None:
            rank = int(location.group.name.rsplit(" ", 1)[1])
            out.setdefault(rank, []).append((s["open"][0], event.time, s["open"][1], tc))
            s["open"] = None
    return out


def main(argv):
    args, opts = parse_args(argv)
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    traced = instances(args[0], opts.get("region", "truth_iter"))
    # the truth's CPU clock: the one the trace's task-clock is (its member's description)
    clock = clock_of(next((m.description for m in otf2.reader.Reader(args[0]).definitions.metric_members
                           if m.name == "task-clock"), None))
    begin, end, cpu, bare = [], [], [], []
    for path in args[1:]:
        rank = int(path.rsplit(".", 1)[1])
        truth, mine = read_truth([path], clock), traced.get(rank, [])
        if len(truth) != len(mine):
            print("FAIL: rank %d: %d instances in the trace, %d in %s" % (rank, len(mine), len(truth), path))
            return 2
        for rec, (t_enter, t_leave, tc_enter, tc_leave) in zip(truth, mine):
            if tc_enter is None or tc_leave is None:
                bare.append((t_leave - rec[-1][0]) / 1e3)
                continue
            begin.append((rec[0][0] - t_enter) / 1e3)
            end.append((t_leave - rec[-1][0]) / 1e3)
            cpu.append(((tc_leave - tc_enter) - (rec[-1][1] - rec[0][1])) / 1e3)
    if not begin:
        print("FAIL: no instances with counter values at both ends (%d without)" % len(bare))
        return 2
    b, e = median(begin), median(end)
    print("%d instances with counter values: begin gap %.2f us, end gap %.2f us (medians; end/begin %.2f), "
          "CPU excess %.2f us%s" % (len(begin), b, e, e / b if b > 0 else float("inf"), median(cpu),
                                    "; %d without (end gap %.2f us)" % (len(bare), median(bare)) if bare else ""))
    if "max-end-ratio" in opts and not e <= float(opts["max-end-ratio"]) * b:
        print("FAIL: end gap %.2f us above %s times the begin gap %.2f us: tracer's work inside the region's end" %
              (e, opts["max-end-ratio"], b))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

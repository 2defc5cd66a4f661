#!/usr/bin/python3
"""sample_cpu_bound.py: no sample of a trace claims more CPU time than wall time
(a thread's task-clock cannot advance faster than the clock).

    sample_cpu_bound.py TRACE.otf2 [--slack-us US] [--region NAME]

For every sample (CallingContextSample with task-clock values at its time) of
every location: the increase of task-clock since the location's previous event
with task-clock values (a region boundary or a sample), against the time
between the two. A wall-clock sample stamped at its timer's expiry while its
values were read later, after the thread had run on, claims more CPU time than
time passed: more than the slack (default 100 us: the clocks' reads and the
kernel's entry) counts as impossible. With --region, also the samples inside
that region's instances are counted. Printed: samples, impossible samples,
the largest excess; exit status 1 when any sample is impossible, 0 otherwise,
2 on bad input. Needs the python3-otf2 bindings (Debian's python3).
"""
import sys

import otf2


def metric_values(event):
    """{member name: value} of a Metric event (its class's members; also truth_gaps.py's)"""
    klass = event.metric
    if isinstance(klass, otf2.definitions.MetricInstance):
        klass = klass.metric_class
    return dict(zip((m.name for m in klass.members), event.values))


def main(argv):
    args, slack_us, region = [], 100.0, None
    it = iter(argv[1:])
    for a in it:
        if a == "--slack-us":
            slack_us = float(next(it, "nan"))
        elif a == "--region":
            region = next(it, None)
        else:
            args.append(a)
    if len(args) != 1 or not slack_us >= 0 or (region is None and "--region" in argv):
        sys.stderr.write(__doc__)
        return 2
    last, pending, inside = {}, {}, {}
    samples = impossible = in_region = 0
    worst = 0.0
    for location, event in otf2.reader.Reader(args[0]).events:
        if isinstance(event, otf2.events.Metric):
            values = metric_values(event)
            if "task-clock" in values:
                pending[location] = (event.time, values["task-clock"])
            continue
        # the region's instances, whether their boundaries carry values or not
        if isinstance(event, otf2.events.CallingContextEnter) and event.calling_context.region.name == region:
            inside[location] = True
        elif isinstance(event, otf2.events.CallingContextLeave) and event.calling_context.region.name == region:
            inside[location] = False
        tc = pending.pop(location, None)
        if tc is None or tc[0] != event.time:
            continue
        if isinstance(event, otf2.events.CallingContextSample) and location in last:
            samples += 1
            in_region += inside.get(location, False)
            t0, c0 = last[location]
            excess = (tc[1] - c0) - (tc[0] - t0)
            worst = max(worst, excess)
            if excess > slack_us * 1e3:
                impossible += 1
        last[location] = tc
    print("samples %d (%d in %s), impossible %d, largest excess %.3f ms"
          % (samples, in_region, region or "no region", impossible, worst / 1e6))
    return 1 if impossible else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

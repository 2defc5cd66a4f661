#!/usr/bin/env python3
"""omp_wait_check.py: an OpenMP thread's wait for another thread's tool time,
in a trace of tests/omp_wait_app, against the truth the program recorded.

    omp_wait_check.py TRACE TRUTH [--max-share F] [--min-tool F]

omp_wait_app's regions: barrier A, thread 0 works in critical sections
(thread 1 nothing), barrier B, both work. The truth file (the program's own
CLOCK_MONOTONIC times, the trace's clock) says where the threads were: both
leave A together and thread 1 calls B right after, so without the tracer
thread 1 leaves B when thread 0 arrives there, and in the program's own time
(a location's timestamps less the tracer's time before them, what hcafold
folds: docs/output.md, "Tool time") thread 1's time from leaving A to leaving
B is thread 0's from leaving A to entering B, plus thread 1's wake-up: F1 =
F0 + wake. Traced, thread 0 spends T0 of the tracer's time between (samples,
drains at its critical sections' boundaries) and thread 1 waits that much
longer; unless the tracer counts that wait as thread 1's tool time, F1 - F0 =
T0 + wake. Regions whose threads the program saw leave A more than 0.2 ms
apart (a thread the system woke late, on a loaded machine) are left out.
Printed: per thread the medians over the regions of F, the
tracer's time T between A and B, and of F1 - F0; with --max-share F the
exit status is 1 when the median of F1 - F0 exceeds F times the median T0
(the wait for the tracer left in), and with --min-tool F when the median T0 is
below F of F0 (too little tool time to tell); 2 on bad input.
"""
import statistics
import sys

A_GAP_NS = 200000  # regions whose threads left barrier A further apart (the system woke one late) are left out


def read_truth(path):
    """per region: {thread: (start, a_exit, b_arrive, b_exit, end)}"""
    regions, cur = [], None
    with open(path) as f:
        for line in f:
            p = line.split()
            if p and p[0] == "I":
                cur = {}
                regions.append(cur)
            elif p and p[0] == "T" and cur is not None:
                cur[int(p[1])] = tuple(int(x) for x in p[2:7])
    return [r for r in regions if 0 in r and 1 in r]


def read_trace(path):
    """per location (master first): per share of the parallel region, the
    (time, tool total) of the leave of its first barrier, the enter and the
    leave of its second"""
    import otf2
    shares = {}
    tool = {}
    with otf2.reader.open(path) as r:
        for loc, ev in r.events:
            kind = type(ev).__name__
            name = loc.name
            if kind == "Metric":
                try:
                    members = [m.name for m in ev.metric.members]
                except AttributeError:
                    continue
                if "tool:time" in members:
                    tool[name] = ev.values[members.index("tool:time")]
                continue
            if kind not in ("CallingContextEnter", "CallingContextLeave"):
                continue
            region = ev.calling_context.region.name
            mine = shares.setdefault(name, [])
            if kind == "CallingContextEnter" and "_omp_fn" in region:
                mine.append([])
            elif region == "omp barrier" and mine:
                mine[-1].append((ev.time, tool.get(name, 0)))
    out = []
    for name in sorted(shares, key=lambda n: (n != "master thread", n)):
        # barrier A's enter and leave, barrier B's enter and leave
        out.append([s[1:4] for s in shares[name] if len(s) == 4])
    return out


def main(argv):
    args, opts, i = [], {}, 1
    while i < len(argv):
        if argv[i] in ("--max-share", "--min-tool") and i + 1 < len(argv):
            opts[argv[i]] = float(argv[i + 1])
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    truth = read_truth(args[1])
    threads = read_trace(args[0])
    if len(threads) != 2 or not truth:
        print("FAIL: need two threads in the trace and regions in the truth", file=sys.stderr)
        return 2
    n = min(len(truth), len(threads[0]), len(threads[1]))
    if n < 10:
        print("FAIL: only %d regions" % n, file=sys.stderr)
        return 2
    # the premise, from the program's own times: the threads leave A together
    # (not when the system woke one of them late: such regions are left out),
    # thread 1 calls B right after (medians, ms)
    together = [i for i in range(n) if abs(truth[i][0][1] - truth[i][1][1]) <= A_GAP_NS]
    idle1 = statistics.median(r[1][2] - r[1][1] for r in truth[:n]) / 1e6
    f, t = [[], []], [[], []]
    for k in range(2):
        for (a_leave, a_tool), (b_enter, b_enter_tool), (b_leave, b_tool) in threads[k][:n]:
            end, end_tool = (b_enter, b_enter_tool) if k == 0 else (b_leave, b_tool)
            t[k].append((end_tool - a_tool) / 1e6)
            f[k].append((end - a_leave - (end_tool - a_tool)) / 1e6)
    if len(together) < 10:
        print("FAIL: only %d of %d regions left A together" % (len(together), n))
        return 1
    diff = statistics.median(f[1][i] - f[0][i] for i in together)
    t0 = statistics.median(t[0][i] for i in together)
    f0 = statistics.median(f[0][i] for i in together)
    print("regions %d, %d of them left A within %.1f ms of each other (the program's own times); thread 1 calls B "
          "%.3f ms after A (median)" % (n, len(together), A_GAP_NS / 1e6, idle1))
    print("thread 0, A to B's enter: %.3f ms of its own time, %.3f ms of the tracer's" % (f0, t0))
    print("thread 1, A to B's leave: %.3f ms of its own time, %.3f ms of the tracer's"
          % (statistics.median(f[1][i] for i in together), statistics.median(t[1][i] for i in together)))
    print("F1 - F0 (thread 1's wait beyond thread 0's work): median %.3f ms = %.2f of thread 0's tool time"
          % (diff, diff / t0 if t0 > 0 else float("nan")))
    bad = 0
    if idle1 > 0.5:
        print("FAIL: the program did not run as designed (thread 1 late at B)")
        bad = 1
    if "--min-tool" in opts and t0 < opts["--min-tool"] * f0:
        print("FAIL: thread 0's tool time %.3f ms is below %.2f of its work %.3f ms" % (t0, opts["--min-tool"], f0))
        bad = 1
    if "--max-share" in opts and diff > opts["--max-share"] * t0:
        print("FAIL: thread 1 waits %.3f ms beyond thread 0's work, more than %.2f of thread 0's tool time %.3f ms"
              % (diff, opts["--max-share"], t0))
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))

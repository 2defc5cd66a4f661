#!/usr/bin/env python3
"""omp_wait_check.py: an OpenMP thread's wait for another thread's tool time,
in a trace of tests/omp_wait_app, against the truth the program recorded.

    omp_wait_check.py TRACE TRUTH [--max-share F] [--min-tool F]

omp_wait_app's regions: barrier A, thread 0 works in critical sections
(thread 1 nothing), barrier B, both work. In the program's own time (a
location's timestamps less its tool:time before them, what hcafold folds:
docs/output.md, "Tool time"), F0 is thread 0's time from leaving A to
entering B (its work) and F1 thread 1's from leaving A to leaving B. Without
the tracer thread 1 leaves B when thread 0 arrives there, so F1 - F0 is how
much earlier thread 1 left A than thread 0 (the system wakes the threads of
a barrier one after the other, up to milliseconds apart on a loaded machine)
plus thread 1's wake-up at B. The first part comes from the program's own
times (truth: CLOCK_MONOTONIC, the trace's clock, right after each barrier
returned) less what the tracer spent in each thread's leave of A before
that (its tool:time from A's enter to A's leave): D = F1 - F0 - (a_exit0 -
a_exit1 - (dA0 - dA1)) is thread 1's wake-up at B, small. Traced, thread 0
spends T0 of the tracer's time between A and B (samples, drains at its
critical sections' boundaries) and thread 1 waits that much longer: unless
the tracer counts that wait as thread 1's tool time, D = T0 + wake-up.
Printed: the medians over the regions of F0, F1, T0, the truth's correction
and D; with --max-share F the exit status is 1 when the median D exceeds F
times the median T0 (the wait for the tracer left in), with --min-tool F
when the median T0 is below F of F0 (too little tool time to tell); 2 on
bad input.
"""
import statistics
import sys


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
    (time, tool total) of its barriers' events: A's enter and leave, B's
    enter and leave"""
    import otf2
    from first_instance import tool_total
    shares = {}
    tool = {}
    with otf2.reader.open(path) as r:
        for loc, ev in r.events:
            kind = type(ev).__name__
            name = loc.name
            if kind == "Metric":
                total = tool_total(ev)
                if total is not None:
                    tool[name] = total
                continue
            if kind not in ("CallingContextEnter", "CallingContextLeave"):
                continue
            region = ev.calling_context.region.name
            mine = shares.setdefault(name, [])
            if kind == "CallingContextEnter" and "_omp_fn" in region:
                mine.append([])
            elif region == "omp barrier" and mine:
                mine[-1].append((ev.time, tool.get(name, 0)))
    return [[s for s in shares[name] if len(s) == 4]
            for name in sorted(shares, key=lambda n: (n != "master thread", n))]


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
    f0, f1, t0, corr, d = [], [], [], [], []
    for i in range(n):
        (a0e, a0e_t), (a0l, a0l_t), (b0e, b0e_t), _ = threads[0][i]
        (a1e, a1e_t), (a1l, a1l_t), _, (b1l, b1l_t) = threads[1][i]
        f0.append((b0e - a0l - (b0e_t - a0l_t)) / 1e6)
        f1.append((b1l - a1l - (b1l_t - a1l_t)) / 1e6)
        t0.append((b0e_t - a0l_t) / 1e6)
        # how much earlier thread 1 left A, in the program's time: the
        # program's own times less the tracer's in each leave of A
        c = ((truth[i][0][1] - truth[i][1][1]) - ((a0l_t - a0e_t) - (a1l_t - a1e_t))) / 1e6
        corr.append(c)
        d.append(f1[-1] - f0[-1] - c)
    med = statistics.median
    idle1 = med(r[1][2] - r[1][1] for r in truth[:n]) / 1e6
    print("regions %d; truth: thread 1 calls B %.3f ms after leaving A; left A %.3f ms before thread 0 "
          "(program time, medians)" % (n, idle1, med(corr)))
    print("thread 0, A to B's enter: %.3f ms of its own time, %.3f ms of the tracer's" % (med(f0), med(t0)))
    print("thread 1, A to B's leave: %.3f ms of its own time" % med(f1))
    dm, tm = med(d), med(t0)
    print("D = F1 - F0 - (how much earlier thread 1 left A): median %.3f ms = %.2f of thread 0's tool time"
          % (dm, dm / tm if tm > 0 else float("nan")))
    bad = 0
    if idle1 > 0.5:
        print("FAIL: the program did not run as designed (thread 1 late at B)")
        bad = 1
    if "--min-tool" in opts and tm < opts["--min-tool"] * med(f0):
        print("FAIL: thread 0's tool time %.3f ms is below %.2f of its work %.3f ms" % (tm, opts["--min-tool"], med(f0)))
        bad = 1
    if "--max-share" in opts and dm > opts["--max-share"] * tm:
        print("FAIL: thread 1 waits %.3f ms beyond thread 0's work, more than %.2f of thread 0's tool time %.3f ms"
              % (dm, opts["--max-share"], tm))
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))

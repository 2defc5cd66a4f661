#!/usr/bin/env python3
"""thin_written.py: why each instance of a thinned region was written, per
location, in an hcatrace trace (tests/e2e/thin.sh; docs/trace-format.md,
"Thinning"). A location's first instances are written in full (HCATRACE_THIN's
N; the cost rule's probe, until its key is found cheap: at most PROBE); past
them an instance is written only when it lasted at least the threshold
(HCATRACE_THIN's DURATION), held a sample or held another written instance;
every other one is counted, not written. This checks that rule on the
instances themselves, so it holds however many of them a loaded machine
stretches past the threshold (the count of written instances does not): the
instances written for none of the three reasons are the ones in full, and
they must come first, within the first N written.

    /usr/bin/python3 tests/thin_written.py TRACE REGION --probe N [--min-us US]

Prints one line per location; exit status 1 when a location wrote an
instance for none of the three reasons past its first N, or when no location
wrote any instance past the ones in full (after its last one written for no
reason: nothing then shows the rule); 2 on bad input.
"""
import collections
import sys

import otf2


def parse(argv):
    """(trace, region, probe, min_ns) from the command line, or None"""
    args, opts = [], {}
    i = 1
    while i < len(argv):
        if argv[i] in ("--probe", "--min-us") and i + 1 < len(argv):
            opts[argv[i]] = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2 or "--probe" not in opts:
        return None
    try:
        return args[0], args[1], int(opts["--probe"]), float(opts.get("--min-us", "50")) * 1e3
    except ValueError:
        return None


def main(argv):
    parsed = parse(argv)
    if parsed is None:
        print(__doc__, file=sys.stderr)
        return 2
    trace, region, probe, min_ns = parsed
    samples = collections.Counter()     # samples seen so far per location
    stacks = collections.defaultdict(list)  # open instances: [name, time, samples, nested written]
    count = collections.Counter()       # written instances of REGION per location
    reasons = collections.defaultdict(list)  # per location, each written instance's reason, in order
    with otf2.reader.open(trace) as r:
        for loc, ev in r.events:
            where = "%s/%s" % (loc.group.name, loc.name)
            kind = type(ev).__name__
            if kind == "CallingContextSample":
                samples[where] += 1
            elif kind == "CallingContextEnter":
                stacks[where].append([ev.calling_context.region.name, ev.time, samples[where], False])
            elif kind == "CallingContextLeave" and stacks[where]:
                name, t0, s0, nested = stacks[where].pop()
                if stacks[where]:
                    stacks[where][-1][3] = True  # the enclosing instance holds a written one
                if name != region:
                    continue
                count[where] += 1
                if ev.time - t0 >= min_ns:
                    reasons[where].append("long")
                elif samples[where] != s0:
                    reasons[where].append("sample")
                elif nested:
                    reasons[where].append("nested")
                else:
                    reasons[where].append("none")
    bad, later = [], 0
    for where in sorted(reasons):
        rs = reasons[where]
        # the instances in full: up to the last one written for no reason
        full = max((k + 1 for k, r in enumerate(rs) if r == "none"), default=0)
        after = collections.Counter(rs[full:])
        later += len(rs) - full
        print("%s: %d written: first %d in full, then %d lasting >= %.0f us, %d holding a sample, %d holding "
              "a written one" % (where, count[where], full, after["long"], min_ns / 1e3, after["sample"],
                                 after["nested"]))
        if full > probe:
            bad.append("%s: instance %d written for no reason, past the first %d" % (where, full, probe))
    for b in bad:
        print("FAIL: %s" % b)
    if bad:
        return 1
    if not later:
        print("FAIL: no location wrote an instance of %s past the ones in full" % region)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""thin_written.py: why each instance of a thinned region was written, per
location, in an hcatrace trace (tests/e2e/thin.sh; docs/trace-format.md,
"Thinning"). Past the first PROBE instances of a location (written in full by
the cost rule), an instance is written only when it lasted at least the
threshold (HCATRACE_THIN's DURATION), held a sample or held another written
instance; every other one is counted, not written. This checks that rule on
the instances themselves, so it holds however many of them a loaded machine
stretches past the threshold (the count of written instances does not).

    /usr/bin/python3 tests/thin_written.py TRACE REGION --probe N [--min-us US]

Prints one line per location and a total; exit status 1 when an instance
past the first N of its location was written with none of the three reasons,
or when no location wrote more than N; 2 on bad input.
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
    why = collections.defaultdict(collections.Counter)
    first_bad = None
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
                if count[where] <= probe:
                    why[where]["probe"] += 1
                elif ev.time - t0 >= min_ns:
                    why[where]["long"] += 1
                elif samples[where] != s0:
                    why[where]["sample"] += 1
                elif nested:
                    why[where]["nested"] += 1
                else:
                    why[where]["none"] += 1
                    if first_bad is None:
                        first_bad = "%s: instance %d written, %.1f us, no sample, nothing nested" % (
                            where, count[where], (ev.time - t0) / 1e3)
    for where in sorted(why):
        w = why[where]
        print("%s: %d written: first %d, then %d lasting >= %.0f us, %d holding a sample, %d holding "
              "a written one, %d for no reason" % (where, count[where], w["probe"], w["long"], min_ns / 1e3,
                                                   w["sample"], w["nested"], w["none"]))
    bad = sum(w["none"] for w in why.values())
    if first_bad:
        print("FAIL: %d written for no reason; first: %s" % (bad, first_bad))
        return 1
    if not any(c > probe for c in count.values()):
        print("FAIL: no location wrote more than the first %d instances of %s" % (probe, region))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

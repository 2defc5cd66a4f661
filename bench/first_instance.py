#!/usr/bin/env python3
"""first_instance.py: what the first instance of each region costs beyond the
others, per location, in an hcatrace trace (docs/benchmarks.md, "The first
lookup"). For every (location, region): the first instance's duration, the
tracer's time in it (tool:time), its duration without that, and the median
duration without it of the other instances.

    /usr/bin/python3 bench/first_instance.py TRACE [NAME-SUBSTRING]
"""
import collections
import statistics
import sys

import otf2


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    want = argv[2] if len(argv) > 2 else ""
    tool = collections.defaultdict(int)
    stacks = collections.defaultdict(list)
    out = collections.defaultdict(list)
    with otf2.reader.open(argv[1]) as r:
        for loc, ev in r.events:
            kind = type(ev).__name__
            where = "%s/%s" % (loc.group.name, loc.name)
            if kind == "Metric":
                try:
                    names = [m.name for m in ev.metric.members]
                except AttributeError:
                    continue
                if "tool:time" in names:
                    tool[where] = ev.values[names.index("tool:time")]
            elif kind == "CallingContextEnter":
                stacks[where].append((ev.calling_context.region.name, ev.time, tool[where]))
            elif kind == "CallingContextLeave" and stacks[where]:
                name, t0, tool0 = stacks[where].pop()
                if want in name:
                    out[(where, name)].append((ev.time - t0, tool[where] - tool0))
    for (loc, name), v in sorted(out.items()):
        d, t = v[0]
        rest = [a - b for a, b in v[1:]]
        med = statistics.median(rest) if rest else float("nan")
        print("%-24s %-24s first %10.1f us (tool %8.1f, without %10.1f)  others without: median %10.1f us"
              % (loc, name[:24], d / 1e3, t / 1e3, (d - t) / 1e3, med / 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

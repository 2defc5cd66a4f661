#!/usr/bin/env python3
"""first_instance.py: what the first instance of each region costs beyond the
others, per location, in an hcatrace trace (docs/benchmarks.md, "The first
lookup"; tests/e2e/first_instance.sh). For every (location, region), or
with --context every (location, calling context): the first instance's
duration, the tracer's time in it (tool:time), its duration without that
(the program's own time, what hcafold folds), and the median duration
without it of the other instances.

    /usr/bin/python3 tests/first_instance.py TRACE [NAME-SUBSTRING] [--context] [--max-excess US]

--max-excess US: exit status 1 when the median over the keys of (the first
instance's own time - the median own time of the others) exceeds US
microseconds; 2 on bad input.
"""
import collections
import statistics
import sys

import otf2


def tool_total(ev):
    """the tool:time running total of a Metric event of the tracer's tool
    class (docs/trace-format.md, "Tool time"), else None"""
    try:
        names = [m.name for m in ev.metric.members]
    except AttributeError:
        return None
    return ev.values[names.index("tool:time")] if "tool:time" in names else None


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    by_context = "--context" in argv
    limit = None
    if "--max-excess" in argv:
        i = argv.index("--max-excess")
        if i + 1 >= len(argv):
            print(__doc__, file=sys.stderr)
            return 2
        limit = float(argv[i + 1])
        args = [a for a in args if a != argv[i + 1]]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    want = args[1] if len(args) > 1 else ""
    tool = collections.defaultdict(int)
    stacks = collections.defaultdict(list)
    out = collections.defaultdict(list)
    contexts = {}
    with otf2.reader.open(args[0]) as r:
        for loc, ev in r.events:
            kind = type(ev).__name__
            where = "%s/%s" % (loc.group.name, loc.name)
            if kind == "Metric":
                total = tool_total(ev)
                if total is not None:
                    tool[where] = total
            elif kind == "CallingContextEnter":
                cc = ev.calling_context
                name = cc.region.name
                if by_context:
                    name = "%s #%d" % (name, contexts.setdefault(id(cc), len(contexts)))
                stacks[where].append((name, ev.time, tool[where]))
            elif kind == "CallingContextLeave" and stacks[where]:
                name, t0, tool0 = stacks[where].pop()
                if want in name:
                    out[(where, name)].append((ev.time - t0, tool[where] - tool0))
    excess, first_tool = [], []
    for (loc, name), v in sorted(out.items()):
        d, t = v[0]
        rest = [a - b for a, b in v[1:]]
        med = statistics.median(rest) if rest else float("nan")
        if rest:
            excess.append((d - t - med) / 1e3)
            first_tool.append(t / 1e3)
        print("%-24s %-24s first %10.1f us (tool %8.1f, without %10.1f)  others without: median %10.1f us"
              % (loc, name[:24], d / 1e3, t / 1e3, (d - t) / 1e3, med / 1e3))
    if not excess:
        print("FAIL: no key with more than one instance")
        return 2 if limit is not None else 0
    print("%d keys: the first instance's own time beyond the others' median: median %.1f us; its tool time: "
          "median %.1f us" % (len(excess), statistics.median(excess), statistics.median(first_tool)))
    if limit is not None and statistics.median(excess) > limit:
        print("FAIL: the first instances are %.1f us longer than the others (median), more than %.1f"
              % (statistics.median(excess), limit))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

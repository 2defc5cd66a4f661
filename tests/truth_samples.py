#!/usr/bin/python3
"""truth_samples.py: each call-stack sample of a trace against a program's own
record of where it was (the truth files of tests/truth_bands.py: "B"/"E"
around each instance, "+ NAME" / "- NAME" around each function, times in ns of
CLOCK_MONOTONIC, which is the trace's clock).

    truth_samples.py TRACE.otf2 TRUTH_FILE [--location NAME] [--min-match F] [--recorder NAME]

For every sample of the location (default "master thread") taken inside a
truth instance: the innermost truth function open at the sample's time, and
the innermost frame of the sample's calling context named like a truth
function. Printed: the pairs (truth, stack) and their counts, the fraction of
samples whose stack names the function the truth says. With --recorder, the
samples taken inside the program's own recording function NAME are counted
apart and left out of that fraction: the record's time is read before the
rest of its work (the CPU clock: a system call, where a loaded machine
preempts the thread), so a sample there can fall after the time recorded for
the next function while the program is still recording. With --min-match,
exit status 1 when that fraction is below F (a sample placed at the wrong
time, or a stack naming the wrong function), else 0; 2 on bad input. Needs the
python3-otf2 bindings (Debian's python3).
"""
import bisect
import collections
import os
import sys

import otf2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth_bands import stage_records  # noqa: E402
from truth_fold import parse_args  # noqa: E402


def read_events(path):
    """[(t, kind, name)] sorted by time; kind "B", "E", "+" or "-" """
    ev = [(t, kind, name) for kind, name, t, _ in stage_records(path)]
    ev.sort(key=lambda e: e[0])
    return ev


def truth_at(ev, times, t):
    """the innermost function open at t inside an instance, "" between its
    functions, None outside the instances"""
    i = bisect.bisect_right(times, t) - 1
    j = i
    while j >= 0 and ev[j][1] not in ("B", "E"):
        j -= 1
    if j < 0 or ev[j][1] == "E":
        return None
    open_ = []
    for k in range(j + 1, i + 1):
        if ev[k][1] == "+":
            open_.append(ev[k][2])
        elif open_ and open_[-1] == ev[k][2]:
            open_.pop()
    return open_[-1] if open_ else ""


def in_function(cc, name):
    """whether a frame of the calling context is the function name"""
    while cc is not None:
        if cc.region is not None and cc.region.name.split("(")[0] == name:
            return True
        cc = cc.parent
    return False


def stack_name(cc, names):
    """the innermost frame named like a truth function ("" if none)"""
    while cc is not None:
        n = cc.region.name.split("(")[0] if cc.region is not None else ""
        if n in names:
            return n
        cc = cc.parent
    return ""


def main(argv):
    args, opts = parse_args(argv)
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        ev = read_events(args[1])
    except OSError as e:
        print("truth_samples: %s" % e, file=sys.stderr)
        return 2
    names = {e[2] for e in ev if e[2]}
    times = [e[0] for e in ev]
    where = opts.get("location", "master thread")
    pairs = collections.Counter()
    recorder, recording = opts.get("recorder"), 0
    with otf2.reader.open(args[0]) as r:
        for loc, e in r.events:
            if loc.name != where or not isinstance(e, otf2.events.CallingContextSample):
                continue
            t = truth_at(ev, times, e.time)
            if t is None:
                continue
            if recorder and in_function(e.calling_context, recorder):
                recording += 1
                continue
            pairs[(t, stack_name(e.calling_context, names))] += 1
    total = sum(pairs.values())
    if total == 0:
        print("truth_samples: no sample of %s inside a truth instance" % where, file=sys.stderr)
        return 2
    match = sum(v for (t, s), v in pairs.items() if t == s)
    for (t, s), v in sorted(pairs.items(), key=lambda kv: -kv[1]):
        print("truth %-28s stack %-28s %d" % (t or "-", s or "-", v))
    if recorder:
        print("%d samples in %s (the program recording its truth) left out" % (recording, recorder))
    print("%d samples, %.1f %% name the function the truth says" % (total, 100.0 * match / total))
    if "min-match" in opts and match < float(opts["min-match"]) * total:
        print("FAIL: %.3f of the samples match, below %s" % (match / total, opts["min-match"]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

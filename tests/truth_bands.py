#!/usr/bin/env python3
"""truth_bands.py: a region's source bands, task-clock rates and phases in
hcafold's fold.json measured against a truth of named intervals that the
program recorded itself (a public application patched to record the
boundaries of its functions, or our own proxies: docs/benchmarks.md, "A public
application against its own truth").

    truth_bands.py FOLD_JSON TRUTH_FILE... [--region SUBSTRING]
                   [--max-bound-error D] [--max-share-error D]
                   [--max-rate-error C] [--max-cpu-share-error D]
                   [--functions NAME,NAME...]

The truth file (text, one event a line, times in ns of CLOCK_MONOTONIC and of
the recording thread's CLOCK_THREAD_CPUTIME_ID):
    B t_ns cpu_ns            an instance of the folded region begins
    + NAME t_ns cpu_ns       the function NAME is entered (NAME without spaces)
    - NAME t_ns cpu_ns       NAME is left
    E t_ns cpu_ns            the instance ends
Events outside a B..E pair are ignored; an instance whose + and - do not pair
up is dropped. Several truth files (ranks) are read as one list of instances.

Per function of the truth (recorded in at least half the instances), over
the instances weighted by their durations, as the fold weighs them (samples
on a wall clock fall in each instance in proportion to its duration):
  start, end   the normalized time of its first entry and its last exit in
               the instance;
  share        its time (summed over its calls) / the instances' time;
  rate         its CPU time / its wall time (CPUs).
  spread       the standard deviation over the instances of its start and
               of its end (on a loaded machine preemptions move each
               instance's stages in normalized wall time: tests/stages_app at
               load 25-30 on 2 cores, 0.27-0.30 with one thread, where they
               move by 0.01 in normalized CPU time).
Against the fold's bands of the same function (the shallowest depth that
names it; several bands at that depth: the first's start, the last's end,
their shares summed): the differences of start, end and share, whether the
truth's share lies in the band's share_interval, and the fold's task-clock
rate over the band (its cumulative curve's increase over [start, end]).
Also the CPU share of the whole region, and per fold phase its task-clock
rate against the truth's over the same span of normalized time (the
instances' CPU time interpolated linearly between their recorded events).
When hcafold split the region into duration groups, each group is compared
with the truth instances of its rank by duration (the instances sorted by
CPU time, or by wall time when the fold has no CPU share, are dealt to the
groups in the order of their mean CPU times (wall times): hcafold splits on
task-clock where the trace has it; run hcafold with --mad 1000 so that the
counts match); the checks apply to the largest group.

The truth is what the program measured of itself. Recorded in the traced
run, it holds the tracer's time: compare it with a fold that keeps it
(hcafold --keep-tool-time), which measures the folding alone. hcafold's
default time axis is the program's with the tracer's time removed
(output.md, "Tool time"): compare that with the truth of an untraced run of
the same input (on a machine whose load did not change between the runs).
--region picks, of the regions whose name holds SUBSTRING, the one with the
most instances (and its duration groups).

--max-bound-error D: a band's start and end within D of the truth's, or
within the truth's spread of that boundary when it is larger (a fold of
instances whose stages move that much cannot place a boundary better);
--max-share-error D: its share within D; --max-rate-error C: its rate within
C CPUs; --max-cpu-share-error D: the region's CPU share within D. With
limits, exit status 1 when a function in --functions (default: every
truth function that has a band) breaks one in the largest group (lines starting with FAIL), else 0;
2 on bad input.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth_fold import parse_args, split_lines, wmean, wsd  # noqa: E402


def stage_records(path):
    """the well-formed records of a truth file, in file order: (kind, name, t, cpu), kind
    "B" or "E" (name None) or "+" or "-" (also truth_samples.py's)"""
    for p in split_lines(path):
        if p[0] in ("B", "E") and len(p) == 3:
            yield p[0], None, int(p[1]), int(p[2])
        elif p[0] in ("+", "-") and len(p) == 4:
            yield p[0], p[1], int(p[2]), int(p[3])


def read_truth(paths):
    """[(t0, t1, {name: [(t_in, t_out, cpu_in, cpu_out)]}, [(t, cpu)])] per instance"""
    instances = []
    for path in paths:
        cur = None
        for kind, name, t, c in stage_records(path):
            if kind == "B":
                cur = {"t0": t, "c0": c, "open": {}, "calls": {}, "pts": [(t, c)], "bad": False}
            elif cur is None:
                continue
            elif kind in ("+", "-"):
                cur["pts"].append((t, c))
                if kind == "+":
                    if name in cur["open"]:
                        cur["bad"] = True
                    cur["open"][name] = (t, c)
                elif name not in cur["open"]:
                    cur["bad"] = True
                else:
                    ti, ci = cur["open"].pop(name)
                    cur["calls"].setdefault(name, []).append((ti, t, ci, c))
            else:
                cur["pts"].append((t, c))
                if not cur["bad"] and not cur["open"] and t > cur["t0"]:
                    instances.append((cur["t0"], t, cur["calls"], cur["pts"]))
                cur = None
    return instances


def truth_functions(instances):
    """{name: dict(start, end, share, rate, n)}: duration-weighted over the instances holding the function"""
    out = {}
    names = {n for _, _, calls, _ in instances for n in calls}
    for name in names:
        starts, ends = [], []  # (normalized time, weight)
        fn_wall = fn_cpu = 0.0
        for t0, t1, calls, _ in instances:
            c = calls.get(name)
            if not c:
                continue
            d = float(t1 - t0)
            starts.append(((min(x[0] for x in c) - t0) / d, d))
            ends.append(((max(x[1] for x in c) - t0) / d, d))
            fn_wall += sum(x[1] - x[0] for x in c)
            fn_cpu += sum(x[3] - x[2] for x in c)
        if len(starts) * 2 < len(instances):
            continue
        all_wall = float(sum(t1 - t0 for t0, t1, _, _ in instances))
        out[name] = {"start": wmean(starts), "end": wmean(ends), "start_sd": wsd(starts), "end_sd": wsd(ends),
                     "share": fn_wall / all_wall, "rate": fn_cpu / fn_wall if fn_wall > 0 else float("nan"),
                     "n": len(starts)}
    return out


def interp(pts, t):
    """CPU time at monotonic time t, linear between the recorded (t, cpu) points"""
    if t <= pts[0][0]:
        return pts[0][1]
    for (ta, ca), (tb, cb) in zip(pts, pts[1:]):
        if ta <= t <= tb:
            return ca if tb == ta else ca + (cb - ca) * (t - ta) / (tb - ta)
    return pts[-1][1]


def truth_rate(instances, a, b):
    """CPU time / wall time over normalized [a, b], summed over instances (duration-weighted)"""
    cpu = wall = 0.0
    for t0, t1, _, pts in instances:
        d = t1 - t0
        ta, tb = t0 + a * d, t0 + b * d
        cpu += interp(pts, tb) - interp(pts, ta)
        wall += tb - ta
    return cpu / wall if wall > 0 else float("nan")


def fold_bands(region):
    """{function: dict(start, end, share, lo, hi, depth)} from the shallowest depth naming it"""
    best = {}
    for b in region.get("source_bands", []):
        name = b["function"].split("(")[0]
        cur = best.get(name)
        if cur is not None and cur["depth"] < b["depth"]:
            continue
        lo, hi = b.get("share_interval", [b["share"], b["share"]])
        if cur is None or cur["depth"] > b["depth"]:
            best[name] = {"start": b["start"], "end": b["end"], "share": b["share"], "lo": lo, "hi": hi, "depth": b["depth"]}
        else:
            cur["start"] = min(cur["start"], b["start"])
            cur["end"] = max(cur["end"], b["end"])
            cur["share"] += b["share"]
            cur["lo"] += lo
            cur["hi"] += hi
    return best


def fold_rate(region, a, b):
    """the fold's task-clock rate (CPUs) over normalized [a, b], from its cumulative curve"""
    tc = next((c for c in region.get("counters", []) if c["name"] == "task-clock"), None)
    if tc is None or b <= a:
        return float("nan")
    grid, cum = region["grid"], tc["cumulative"]

    def at(x):
        for i in range(1, len(grid)):
            if x <= grid[i]:
                g0, g1 = grid[i - 1], grid[i]
                return cum[i - 1] + (cum[i] - cum[i - 1]) * (x - g0) / (g1 - g0)
        return cum[-1]

    return (at(b) - at(a)) / (b - a) * tc["mean_rate"] / 1e9


def compare(region, instances, opts):
    """print one fold region against these truth instances; the FAIL lines of its checks"""
    truth = truth_functions(instances)
    bands = fold_bands(region)
    wall = sum(t1 - t0 for t0, t1, _, _ in instances)
    cpu = sum(pts[-1][1] - pts[0][1] for _, _, _, pts in instances)
    print("region %s: %d truth instances (mean %.3f ms), fold %d used (mean %.3f ms); CPU share truth %.3f, fold %.3f"
          % (region["name"], len(instances), wall / len(instances) / 1e6, region["instances"]["used"],
             region["mean_duration_s"] * 1e3, cpu / wall, region.get("cpu_share", float("nan"))))
    print("%-32s %17s %17s %7s %7s %14s %6s %17s" % ("function", "start truth/fold", "end truth/fold", "share", "(fold)",
                                                    "interval", "in?", "rate truth/fold"))
    checked = opts["functions"].split(",") if "functions" in opts else [n for n in truth if n in bands]
    fails = []
    if "max-cpu-share-error" in opts and not abs(cpu / wall - region.get("cpu_share", -1.0)) <= float(opts["max-cpu-share-error"]):
        fails.append("FAIL CPU share %.3f, truth %.3f" % (region.get("cpu_share", float("nan")), cpu / wall))
    for name in sorted(truth, key=lambda n: (truth[n]["start"], -truth[n]["end"])):
        t, b = truth[name], bands.get(name)
        if b is None:
            print("%-32s %7.3f / %-7s %7.3f / %-7s %7.3f %7s %14s %6s %7.3f / %-7s" % (
                name[:32], t["start"], "-", t["end"], "-", t["share"], "-", "-", "-", t["rate"], "-"))
            if name in checked:
                fails.append("FAIL %s: no band" % name)
            continue
        inside = b["lo"] <= t["share"] <= b["hi"]
        fr = fold_rate(region, b["start"], b["end"])
        print("%-32s %7.3f / %-7.3f %7.3f / %-7.3f %7.3f %7.3f %6.3f-%-6.3f %6s %7.3f / %-7.3f depth %d, spread %.3f %.3f"
              % (name[:32], t["start"], b["start"], t["end"], b["end"], t["share"], b["share"], b["lo"], b["hi"],
                 "yes" if inside else "no", t["rate"], fr, b["depth"], t["start_sd"], t["end_sd"]))
        if name not in checked:
            continue
        if "max-bound-error" in opts:
            for what in ("start", "end"):
                limit = max(float(opts["max-bound-error"]), t[what + "_sd"])
                if abs(t[what] - b[what]) > limit:
                    fails.append("FAIL %s: %s %.3f, truth %.3f (limit %.3f)" % (name, what, b[what], t[what], limit))
        if "max-share-error" in opts and abs(t["share"] - b["share"]) > float(opts["max-share-error"]):
            fails.append("FAIL %s: share %.3f, truth %.3f" % (name, b["share"], t["share"]))
        if "max-rate-error" in opts and abs(t["rate"] - fr) > float(opts["max-rate-error"]):
            fails.append("FAIL %s: rate %.3f CPUs, truth %.3f" % (name, fr, t["rate"]))
    for p in region.get("phases", []):
        tc = p["rates"].get("task-clock")
        print("phase %.3f-%.3f: task-clock %s CPUs, truth %.3f" % (
            p["start"], p["end"], "%.3f" % (tc / 1e9) if tc is not None else "-", truth_rate(instances, p["start"], p["end"])))
    return fails


def main(argv):
    args, opts = parse_args(argv)
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(args[0]) as f:
            fold = json.load(f)
        instances = read_truth(args[1:])
    except (OSError, ValueError) as e:
        print("truth_bands: %s" % e, file=sys.stderr)
        return 2
    regions = [r for r in fold.get("regions", []) if opts.get("region", "") in r["name"]]
    if not regions or not instances:
        print("truth_bands: no region%s or no truth instance" % (" matching " + opts["region"] if "region" in opts else ""),
              file=sys.stderr)
        return 2
    base = max(regions, key=lambda r: r["instances"]["found"])["name"].split(" (duration group")[0]
    groups = [r for r in fold["regions"] if r["name"] == base or r["name"].startswith(base + " (duration group")]
    # hcafold splits on the instances' CPU times where the trace has task-clock, else on wall times
    on_cpu = all(g.get("cpu_share") is not None for g in groups)
    groups.sort(key=lambda g: g["mean_duration_s"] * (g["cpu_share"] if on_cpu else 1.0))
    if sum(g["instances"]["found"] for g in groups) != len(instances):
        print("# the fold found %d instances, the truth has %d" % (sum(g["instances"]["found"] for g in groups), len(instances)))
    instances.sort(key=lambda r: (r[3][-1][1] - r[3][0][1]) if on_cpu else (r[1] - r[0]))
    fails, start = [], 0
    largest = max(groups, key=lambda g: g["instances"]["used"])
    for g in groups:
        mine = instances[start:start + g["instances"]["found"]] if len(groups) > 1 else instances
        start += g["instances"]["found"]
        if mine:
            f = compare(g, mine, opts)
            if g is largest:
                fails = f
    for line in fails:
        print(line)
    return 1 if fails else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv))

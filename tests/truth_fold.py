#!/usr/bin/env python3
"""truth_fold.py: a fold of tests/truth_app measured against the exact truth the
program recorded itself (issue 17).

    truth_fold.py FOLD_JSON TRUTH_FILE... [--region NAME] [--max-mae PCT]
                  [--max-pf-mae PCT] [--max-cum-error PCT] [--max-bound-error D]
                  [--max-cpus C] [--max-share-error D] [--max-band-error D]
                  [--resolution R]

The truth files (PREFIX.RANK, written by truth_app) hold per instance the
records (monotonic time, thread CPU time, page faults, phase, perf's task-clock).
The truth's CPU time is the clock the trace's task-clock is, by its description
in fold.json (clock_of): CLOCK_THREAD_CPUTIME_ID when the tracer read it so, else
perf's task-clock (the two differ by the context-switch path and by time the
scheduler charges to no thread: 1-3 % of a rank that shares its core). Per instance the
cumulative CPU time and faults are interpolated linearly between records, over
the instance's normalized time (truth_app records every 0.1 ms and around every
sleep); the truth's mean cumulative curve at the fold's grid points is the sum
over instances of their counts since entry / the sum of their durations (the
mean weighted by duration, as the fold's: samples on a wall clock fall in each
instance in proportion to its duration). The rate at a grid point x, truth's
and fold's alike, is the increase of that mean cumulative curve, known at the
grid points and joined by straight lines, over the cell [x - R/2, x + R/2] (R,
the resolution, 0.01 by default; clamped to [0, 1]) divided by R: a fold
states its curves on its grid only (fold.json), and a cell's edges fall
between grid points, where the truth taken exactly held the page-touching
bursts that no curve on the grid can place (5-6 % page-fault MAE of the exact
truth against itself through the grid on near-idle traces, docs/benchmarks.md
"Idle folds against truth (issue 17, branch pf17)"). The cumulative truth at x is the sum over
instances of the CPU time since entry / the sum of their durations; the
fold's is its `cumulative` x `mean_rate` (fold.json). hcafold splits a region into
duration groups: the truth's instances sorted by what hcafold split them on
(fold.json's instances.grouped_on: CPU time, the truth's on the same clock, or
wall time) are dealt to the groups in the order of their numbers (run hcafold
with --mad 1000 so that no instance is excluded and the counts match).

Printed per group: the MAE of the folded task-clock and page-fault rates against
the truth at the fold's grid points, both at the same resolution: the fold's
rate averaged over the same cell (from its cumulative curve, whose slope the
rate is), as a percentage of the truth's mean rate;
the same MAE over the grid points more than 0.05 away from the truth's phase
changes (where the fit's smoothing of a step in the rate does not count);
the truth's own noise (half the MAE between the truths of alternate
instances: how far the truth of these instances is from that of infinitely
many such instances, which is all a fold of sparse samples can estimate);
the mean error of the folded cumulative task-clock, as a percentage of its
truth at 1 (where samples fall and how they are weighed shows here, apart
from the smoothing of steps in the rate);
the largest task-clock rate of the fold's phases in CPUs (the low end of its
95 % interval; the fitted curve's largest is printed beside it); the CPU share (truth and fold's);
the truth's phase boundaries (normalized time of the phase changes, the
median weighted by duration: where the phase has changed for half the wall
time, as in the folded mean; a few instances stretched by a preemption late
in them change early and pull a mean 0.02 early on a loaded machine) and the
fold's phase boundary nearest to each; the
starts of the source bands of phase_faults and phase_wait (the first band of
each function, at any depth) against the same truth. When hcafold split the
region into duration groups, the groups' curves weighed by their time are the
fold of all instances (their phases and bands: the largest group's), printed
and checked against the truth of all instances after the groups' own lines
(each group against the truth instances of its rank by CPU or wall time, which
the tracer's time kept in the fold's can shuffle near a split); the
phase bounds and band starts checked are then each group's against its own
instances (the largest error over the groups): a region split into groups of
different shapes has no phases of all instances. With
limits given, the exit status is 1 when that fold of all instances breaks one
(each reason on a line starting with "FAIL"), else 0; 2 on bad input.
--max-band-error D: each band's start within D of the truth's phase change, or
within that change's spread over the instances (their weighted standard
deviation, printed) where that is larger: on a loaded machine preemptions move
each instance's phase changes (ASan at load 13: a spread of 0.073 around a
median of 0.369, its band at 0.435), and a fold of them cannot place the
change better (truth_bands.py's --max-bound-error alike).
"""
import json
import sys

STEP_MARGIN = 0.05  # grid points this close to a truth phase change are "at a step"


def split_lines(path):
    """the non-empty lines of a truth file, split at white space (also truth_bands.py's)"""
    with open(path) as f:
        for line in f:
            p = line.split()
            if p:
                yield p


def clock_of(description):
    """the truth's CPU clock that a trace's task-clock is, by the metric member's description
    (fold.json's counter "description", the trace's MetricMember): "thread" when the tracer
    read it as clock_gettime(CLOCK_THREAD_CPUTIME_ID) (HCATRACE_COUNTER_SOURCE=auto, software
    sets), else "perf" (a perf event)"""
    return "thread" if "CLOCK_THREAD_CPUTIME_ID" in (description or "") else "perf"


def read_truth(paths, clock="perf"):
    """[(records)] per instance: records are (t_ns, cpu_ns, faults, phase, other_cpu_ns): cpu_ns is
    the CPU clock the trace's task-clock is (clock_of): clock "perf": perf's task-clock when
    truth_app could open it, else CLOCK_THREAD_CPUTIME_ID; clock "thread":
    CLOCK_THREAD_CPUTIME_ID. other_cpu_ns is the other one (CLOCK_THREAD_CPUTIME_ID adds the
    kernel's context-switch path; perf's task-clock time the scheduler charges to no thread,
    the hypervisor's steal, interrupts)"""
    instances = []
    for path in paths:
        cur = None
        for p in split_lines(path):
            if p[0] == "I":
                cur = []
                instances.append(cur)
            elif p[0] == "R" and cur is not None:
                thread = int(p[2])
                perf = int(p[5]) if len(p) > 5 and int(p[5]) >= 0 else thread
                tc, other = (thread, perf) if clock == "thread" else (perf, thread)
                cur.append((int(p[1]), tc, int(p[3]), int(p[4]), other))
    return [r for r in instances if len(r) >= 2 and r[-1][0] > r[0][0]]


def interp(xs, ys, x):
    """piecewise-linear value at x of the points (xs ascending)"""
    if x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    lo, hi = 0, len(xs) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if xs[mid] <= x:
            lo = mid
        else:
            hi = mid
    if xs[hi] == xs[lo]:
        return ys[hi]
    return ys[lo] + (ys[hi] - ys[lo]) * (x - xs[lo]) / (xs[hi] - xs[lo])


def weighted_median(pairs):
    """the value below which half the weight lies: of (value, weight) pairs"""
    pairs = sorted(pairs)
    half, acc = sum(w for _, w in pairs) / 2.0, 0.0
    for v, w in pairs:
        acc += w
        if acc >= half:
            return v
    return pairs[-1][0] if pairs else float("nan")


def wmean(pairs):
    """the weighted mean of (value, weight) pairs (also truth_bands.py's)"""
    return sum(v * w for v, w in pairs) / sum(w for _, w in pairs)


def wsd(pairs):
    """their weighted standard deviation"""
    m = wmean(pairs)
    return (sum(w * (v - m) ** 2 for v, w in pairs) / sum(w for _, w in pairs)) ** 0.5


def truth_curves(instances, grid, h):
    """duration-weighted mean over instances of the CPU (CPUs) and fault (1/s) rates at the grid points,
    each averaged over the cell [x - h, x + h] as the fold's are (cell_means: from the mean cumulative
    curve known at the grid points only); CPU share (CPU time / wall time over the instances); mean
    normalized times of the changes to phases 1 and 2; the mean cumulative CPU time at the grid points;
    the spread (weighted standard deviation) of each phase change over the instances"""
    n = len(grid)
    cum = [0.0] * n
    cumf = [0.0] * n
    cpu_sum, wall_sum = 0.0, 0.0
    changes = [[], []]  # per phase change: (normalized time, duration) of each instance
    for rec in instances:
        t0, t1 = rec[0][0], rec[-1][0]
        d = float(t1 - t0)
        xs = [(r[0] - t0) / d for r in rec]
        cs = [float(r[1] - rec[0][1]) for r in rec]
        fs = [float(r[2] - rec[0][2]) for r in rec]
        cpu_sum += cs[-1]
        wall_sum += d
        for k in (1, 2):
            changes[k - 1].append((next((x for x, r in zip(xs, rec) if r[3] >= k), 1.0), d))
        for i, x in enumerate(grid):
            cum[i] += interp(xs, cs, x)
            cumf[i] += interp(xs, fs, x)
    cum = [c / wall_sum for c in cum]
    return cell_means(grid, cum, h), cell_means(grid, [f / wall_sum * 1e9 for f in cumf], h), \
        cpu_sum / wall_sum, [weighted_median(c) for c in changes], cum, [wsd(c) for c in changes]


def cell_means(grid, cum, h):
    """the mean slope over the cells [x - h, x + h] of the grid points (clamped to [0, 1]) of a
    cumulative curve known at the grid points, joined by straight lines: the only rates a fold's
    curve (fold.json: its cumulative on the grid) gives over a cell whose edges fall between grid
    points; the truth is taken through the same operator"""
    out = []
    for x in grid:
        a, b = max(0.0, x - h), min(1.0, x + h)
        out.append((interp(grid, cum, b) - interp(grid, cum, a)) / (b - a))
    return out


def cell_rates(grid, counter, scale, h):
    """the fold's rate of a counter (fold.json) averaged over the cells [x - h, x + h]
    of the grid points, from its cumulative curve (cell_means)"""
    return cell_means(grid, [v * counter["mean_rate"] * scale for v in counter["cumulative"]], h)


def mae_pct(fold, truth, keep=None):
    """MAE of fold against truth as a % of the truth's mean rate (over all points); keep: a
    predicate on the point's index, the points the error is averaged over (None: all)"""
    mean = sum(truth) / len(truth)
    idx = [i for i in range(len(truth)) if keep is None or keep(i)]
    if not idx or not mean > 0:
        return float("nan")
    return 100.0 * sum(abs(fold[i] - truth[i]) for i in idx) / len(idx) / mean


def truth_noise(instances, grid, h):
    """the truth's own noise, task-clock and page faults, % of the mean rate: the rate
    curves of two halves of the instances (alternate ones, by duration) differ by
    their sampling of instances, whose variance is 4x that of the whole truth's
    around the curve of infinitely many such instances; half their MAE estimates
    the whole truth's MAE from that curve, which no fold can follow"""
    halves = [truth_curves(instances[k::2], grid, h) for k in (0, 1)]
    return [mae_pct(halves[0][c], halves[1][c]) / 2 for c in (0, 1)]


def compare(g, mine, h):
    """(results, text) of one fold view g (a region of fold.json, or combined())
    against the truth of the instances mine"""
    grid = g["grid"]
    tc, pf, share, tb, tcum, spread = truth_curves(mine, grid, h)
    counters = {c["name"]: c for c in g["counters"]}
    line = ""
    res = {}
    # away from the truth's phase changes: where a fit's smoothing of a
    # step does not count
    away = lambda i: all(abs(grid[i] - t) > STEP_MARGIN for t in tb)
    noise = truth_noise(mine, grid, h)
    if "task-clock" in counters:
        rate = [v * 1e-9 for v in counters["task-clock"]["rate"]]
        cells = cell_rates(grid, counters["task-clock"], 1e-9, h)
        res["tc"] = mae_pct(cells, tc)
        res["tc_away"] = mae_pct(cells, tc, away)
        # the rates hcafold states (its phases': the summary's numbers), each
        # by the low end of its 95 % interval: a phase at exactly one CPU is
        # estimated a little above it half the time; impossible is a phase
        # whose whole interval lies above. The fitted curve may overshoot a
        # step by its smoothing (printed too)
        phase_rates = [ph.get("rate_intervals", {}).get("task-clock", [ph["rates"]["task-clock"]])[0] * 1e-9
                       for ph in g.get("phases", []) if "task-clock" in ph.get("rates", {})]
        res["cpus"] = max(phase_rates) if phase_rates else max(rate)
        res["curve_cpus"] = max(rate)
        fcum = [v * counters["task-clock"]["mean_rate"] * 1e-9 for v in counters["task-clock"]["cumulative"]]
        res["cum"] = 100.0 * sum(abs(a - b) for a, b in zip(fcum, tcum)) / len(tcum) / tcum[-1]
        line += "task-clock MAE %.1f %% (%.1f %% away from steps; truth's own noise %.1f %%; truth mean " \
            "%.3f CPUs), cumulative %.1f %%, max %.2f CPUs (curve %.2f);" % (
                res["tc"], res["tc_away"], noise[0], sum(tc) / len(tc), res["cum"], res["cpus"], res["curve_cpus"])
    if "page-faults" in counters:
        cells = cell_rates(grid, counters["page-faults"], 1.0, h)
        res["pf"] = mae_pct(cells, pf)
        res["pf_away"] = mae_pct(cells, pf, away)
        line += " page-faults MAE %.1f %% (%.1f %% away from steps; truth's own noise %.1f %%; truth mean " \
            "%.0f /s);" % (res["pf"], res["pf_away"], noise[1], sum(pf) / len(pf))
    fshare = g.get("cpu_share")
    other_share = sum(r[-1][4] - r[0][4] for r in mine) / float(sum(r[-1][0] - r[0][0] for r in mine))
    line += " CPU share truth %.1f %% (%.1f %% by the other CPU clock), fold %s;" % (
        100 * share, 100 * other_share, "%.1f %%" % (100 * fshare) if fshare is not None else "-")
    res["share"] = abs(fshare - share) if fshare is not None else float("inf")
    fb = [p["end"] for p in g["phases"][:-1]]
    near = [min(fb, key=lambda b: abs(b - t)) if fb else float("nan") for t in tb]
    res["bound"] = max(abs(a - b) for a, b in zip(near, tb))
    line += " phase bounds truth %.3f / %.3f, fold %.3f / %.3f" % (tb[0], tb[1], near[0], near[1])
    starts = {}
    for b in g.get("source_bands", []):
        if b["function"] in ("phase_faults", "phase_wait"):
            starts[b["function"]] = min(starts.get(b["function"], 1.0), b["start"])
    band = [starts.get(f, float("nan")) for f in ("phase_faults", "phase_wait")]
    errors = [abs(a - b) if a == a else float("inf") for a, b in zip(band, tb)]
    res["band"] = max(errors)
    res["band_spread"] = list(zip(errors, spread))
    line += "; bands phase_faults / phase_wait start at %.3f / %.3f (the truth's changes spread %.3f / %.3f)" % (
        band[0], band[1], spread[0], spread[1])
    return res, line


def combined(groups):
    """the fold of all instances from hcafold's duration groups: each group's
    curves are the duration-weighted means over its instances, so weighed by
    the groups' total time they are the mean over all (rates, cumulative
    curves, CPU share); phases and source bands: the largest group's"""
    time = [g["mean_duration_s"] * g["instances"]["used"] for g in groups]
    total = sum(time)
    largest = max(groups, key=lambda g: g["instances"]["used"])
    counters = []
    for c in largest["counters"]:
        per = [next((x for x in g["counters"] if x["name"] == c["name"]), None) for g in groups]
        if any(x is None for x in per):
            continue
        n = len(c["rate"])
        counters.append({
            "name": c["name"], "mean_rate": 1.0,
            "rate": [sum(t * x["rate"][i] for t, x in zip(time, per)) / total for i in range(n)],
            "cumulative": [sum(t * x["cumulative"][i] * x["mean_rate"] for t, x in zip(time, per)) / total
                           for i in range(n)]})
    shares = [g.get("cpu_share") for g in groups]
    return {"grid": largest["grid"], "counters": counters, "phases": largest["phases"],
            "source_bands": largest.get("source_bands", []),
            "cpu_share": sum(t * x for t, x in zip(time, shares)) / total if None not in shares else None}


def group_number(region):
    """a region entry's duration group number, from its name's "(duration group g of n)"
    (hcafold numbers them by ascending CPU or wall time, as fold.json's instances.grouped_on
    says), 1 without; then by mean duration"""
    name = region["name"]
    mark = "(duration group "
    g = int(name[name.index(mark) + len(mark):].split()[0]) if mark in name else 1
    return (g, region["mean_duration_s"])


def parse_args(argv):
    """(arguments, {option: value}) of a command line whose options are "--name value" pairs
    (also tests/truth_gaps.py's, truth_bands.py's and truth_samples.py's)"""
    args, opts = [], {}
    i = 1
    while i < len(argv):
        if argv[i].startswith("--") and i + 1 < len(argv):
            opts[argv[i][2:]] = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    return args, opts


def main(argv):
    args, opts = parse_args(argv)
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    region = opts.get("region", "truth_iter")
    h = float(opts.get("resolution", "0.01")) / 2
    with open(args[0]) as f:
        fold = json.load(f)
    groups = sorted((r for r in fold["regions"] if r["name"] == region or r["name"].startswith(region + " (duration")),
                    key=group_number)
    task_clock = [c for g in groups for c in g["counters"] if c["name"] == "task-clock"]
    clock = clock_of(task_clock[0].get("description") if task_clock else None)
    instances = read_truth(args[1:], clock)
    print("# the truth's CPU time: %s (the trace's task-clock)" % (
        "CLOCK_THREAD_CPUTIME_ID" if clock == "thread" else "perf's task-clock"))
    if not groups or not instances:
        print("FAIL: no region %s in the fold, or no truth instances" % region)
        return 2
    if sum(g["instances"]["found"] for g in groups) != len(instances):
        print("# the fold has %d instances, the truth %d" % (sum(g["instances"]["found"] for g in groups),
                                                             len(instances)))
    # dealt to the groups in the order hcafold split them on (fold.json's
    # instances.grouped_on): CPU time (task-clock) or wall time
    on_cpu = any(g["instances"].get("grouped_on") == "cpu_time" for g in groups)
    instances.sort(key=(lambda r: r[-1][1] - r[0][1]) if on_cpu else (lambda r: r[-1][0] - r[0][0]))
    start = 0
    own = []  # each group's results against its own instances
    for gi, g in enumerate(groups):
        mine = instances[start:start + g["instances"]["found"]]
        start += g["instances"]["found"]
        if mine:
            r, text = compare(g, mine, h)
            own.append(r)
            print("group %d (%d instances, mean %.2f ms): %s" % (gi + 1, len(mine), g["mean_duration_s"] * 1e3, text))
    view = groups[0]
    if len(groups) > 1:
        view = combined(groups)
        print("all %d instances (the groups' curves weighed by their time): %s" % (
            len(instances), compare(view, instances, h)[1]))
    res = compare(view, instances, h)[0]
    if len(own) > 1:
        # phases and bands are each group's, of its own instances: the median
        # phase change of all instances falls in neither group when their
        # shapes differ (a rank sharing its core with a busy process and one
        # not: 0.57 and 0.375, all 0.542)
        for key in ("bound", "band"):
            res[key] = max(r[key] for r in own)
        res["band_spread"] = [p for r in own for p in r["band_spread"]]
        print("phases and bands, each group against its own instances: largest errors %.3f / %.3f" % (
            res["bound"], res["band"]))
    failures = []
    for key, opt, what in (("tc", "max-mae", "task-clock MAE"), ("pf", "max-pf-mae", "page-faults MAE"),
                           ("bound", "max-bound-error", "phase bound error"),
                           ("cum", "max-cum-error", "cumulative task-clock error %"),
                           ("share", "max-share-error", "CPU share error"),
                           ("cpus", "max-cpus", "largest task-clock phase rate, low end of its 95 % interval (CPUs)")):
        if opt in opts and key in res and not res[key] <= float(opts[opt]):
            failures.append("FAIL: %s %.3f above %s" % (what, res[key], opts[opt]))
    if "max-band-error" in opts:
        # a band's start within the limit of the truth's phase change, or within that
        # change's spread over the instances when it is larger: a fold of instances whose
        # phases move that much cannot place the change better (as truth_bands.py's bounds)
        limit = float(opts["max-band-error"])
        worst = max(res["band_spread"], key=lambda p: p[0] - max(limit, p[1]))
        if not worst[0] <= max(limit, worst[1]):
            failures.append("FAIL: band start error %.3f above %s and above the instances' spread %.3f" % (
                worst[0], opts["max-band-error"], worst[1]))
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

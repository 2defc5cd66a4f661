#!/usr/bin/python3
"""otf2_conformance.py: an independent check of an OTF2 trace against the rules
of the OTF2 specification that `otf2-print -Werror` does not check, read with
the python3-otf2 bindings (Debian package python3-otf2), not with our reader.

    otf2_conformance.py TRACE.otf2

Checks, per violation class (docs/trace-format.md, "Conformance"):
  references     every referenced definition exists (definitions and events)
  tree           calling contexts' parents exist and form a tree (no cycle)
  unwind ...     every CallingContextEnter/Sample's unwind distance against the
                 tree and the location's previous calling context (OTF2's
                 definition of CallingContext): the node it points to is in the
                 previous and the current context, an entered node is new
  open-region    a region entered with CallingContextEnter bounds the unwind
                 distance: while it is open, the distance points at the
                 region's parent or at a descendant of that parent
  balance        CallingContextLeave leaves the innermost open region, which is
                 on the current path; nothing is left open at the end (except
                 in a trace rebuilt after an abnormal end, `hcafold --recover`:
                 its anchor file holds the HCATRACE::RECOVERED property, and
                 its ranks ended inside the regions left open)
  timestamps     timestamps never decrease on a location
  metric-mode    a metric class's recording mode against where its Metric
                 events are: SYNCHRONOUS[_STRICT] classes only right before a
                 calling-context event at the same time, SYNCHRONOUS_STRICT ones
                 before every CallingContextEnter/Leave of a location using them
                 (a BufferFlush between them, which OTF2 writes where a buffer
                 chunk filled, is not the writer's event and is passed over;
                 a rebuilt trace's rank may end right after a Metric)
  tool-time      hcatrace's own rule (docs/trace-format.md, "Tool time"): the
                 tracer's running totals (the "tool:" class) are its time before
                 their timestamp, so between two of a location they grow by at
                 most the time between them (+ TOOL_SLACK_NS, a delivery
                 measured from the timer's due time)
Exits 0 when the trace conforms; otherwise 1, with one line per violated
class: its count, of how many, and the first example. 2: the trace cannot be read.
"""
import sys

try:
    import otf2
    from otf2.enums import MetricOccurrence
except ImportError:
    sys.stderr.write("otf2_conformance: the python3-otf2 bindings are missing (Debian: python3-otf2)\n")
    sys.exit(2)

TOOL_SLACK_NS = 1000000
CC_EVENTS = (otf2.events.CallingContextEnter, otf2.events.CallingContextLeave, otf2.events.CallingContextSample)


class Violations:
    """Counts and the first example of each violation class."""

    def __init__(self):
        self.count = {}
        self.total = {}
        self.first = {}

    def seen(self, what, n=1):
        self.total[what] = self.total.get(what, 0) + n

    def add(self, what, example):
        self.count[what] = self.count.get(what, 0) + 1
        self.first.setdefault(what, example)

    def report(self, out):
        for what in sorted(self.count):
            of = self.total.get(what)
            of_text = " of %d" % of if of else ""
            out.write("otf2_conformance: %s: %d violation%s%s; first: %s\n" %
                      (what, self.count[what], "" if self.count[what] == 1 else "s", of_text, self.first[what]))
        return 1 if self.count else 0


def ref(d):
    return getattr(d, "_ref", "?")


def describe(cc):
    region = cc.region.name if cc.region is not None else "?"
    return "context %s (%s)" % (ref(cc), region)


class Tree:
    """Root-first paths of calling contexts, checked once each."""

    def __init__(self, definitions, v):
        self.path_of = {}
        self.v = v
        for cc in definitions.calling_contexts:
            self.path(cc)

    def path(self, cc):
        key = ref(cc)
        if key in self.path_of:
            return self.path_of[key]
        nodes, seen, c = [], set(), cc
        while c is not None:
            if ref(c) in seen:
                self.v.add("tree", "%s is its own ancestor" % describe(cc))
                break
            seen.add(ref(c))
            nodes.append(ref(c))
            c = c.parent
        nodes.reverse()
        self.path_of[key] = tuple(nodes)
        return self.path_of[key]


class LocationState:
    def __init__(self, name):
        self.name = name
        self.path = ()         # the previous calling context, root first
        self.open = []         # (ref, path) of regions entered with CallingContextEnter
        self.last_time = None
        self.pending = []      # Metric events waiting for the event after them
        self.classes = set()   # metric classes this location writes
        self.tool = None       # (wall total, time) of the last "tool:" Metric


def common_prefix(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def check_unwind(v, s, where, event, is_enter):
    """The unwind distance of an Enter or Sample: OTF2's definition of
    CallingContext. Counts the event in 'unwind' and 'open-region'."""
    kind = "CallingContextEnter" if is_enter else "CallingContextSample"
    cur = v.tree.path(event.calling_context)
    n, d = len(cur), event.unwind_distance
    common = common_prefix(cur, s.path)
    what = "unwind " + kind
    v.seen(what)
    text = "%s %s %s unwindDistance %d, depth %d, %d node(s) in common with the previous context" % (
        where, kind, describe(event.calling_context), d, n, common)
    if d == 0:
        if is_enter or cur != s.path:
            v.add(what, text + " (0: nothing entered or left)")
    elif d > n + 1:
        v.add(what, text + " (beyond the root)")
    elif d < n - common + 1:
        v.add(what, text + " (points at a node not in the previous context; at least %d)" % (n - common + 1))
    elif is_enter and (d < 2 or common == n):
        v.add(what, text + " (the entered region is not new)")
    if s.open:
        # OTF2: regions entered with CallingContextEnter bound the unwind
        # distance: it points at the parent of the innermost open one, or at a
        # descendant of that parent
        v.seen("open-region")
        top, top_path = s.open[-1]
        parent = top_path[:-1]
        pointed = n - d  # index of the node pointed at, root first; -1: the undefined root
        if cur[:len(parent)] != parent or pointed < len(parent) - 1:
            v.add("open-region", "%s %s %s unwindDistance %d while context %s is open (entered with "
                  "CallingContextEnter, at depth %d): it points above the region's parent" %
                  (where, kind, describe(event.calling_context), d, top, len(top_path)))
    s.path = cur


def flush_metrics(v, s, where, event):
    """Metric events written before `event` (None: the end of the location)."""
    attached = isinstance(event, CC_EVENTS)
    for klass, time in s.pending:
        mode = klass.occurrence
        if mode in (MetricOccurrence.SYNCHRONOUS, MetricOccurrence.SYNCHRONOUS_STRICT):
            v.seen("metric-mode")
            if not attached or event.time != time:
                after = type(event).__name__ if event is not None else "the end of the location"
                v.add("metric-mode", "%s Metric of class %s (%s) at %d, followed by %s at %s" %
                      (where, ref(klass), str(mode).split(".")[-1], time, after,
                       getattr(event, "time", "-")))
    if isinstance(event, (otf2.events.CallingContextEnter, otf2.events.CallingContextLeave)):
        written = set(ref(k) for k, t in s.pending if t == event.time)
        for klass in s.classes:
            if klass.occurrence == MetricOccurrence.SYNCHRONOUS_STRICT:
                v.seen("metric-mode")
                if ref(klass) not in written:
                    v.add("metric-mode", "%s %s at %d without a Metric of class %s, declared SYNCHRONOUS_STRICT" %
                          (where, type(event).__name__, event.time, ref(klass)))
    s.pending = []


def check_event(v, s, location, event):
    where = "location %s (%s):" % (ref(location), location.name)
    v.seen("timestamps")
    if s.last_time is not None and event.time < s.last_time:
        v.add("timestamps", "%s %s at %d after %d" % (where, type(event).__name__, event.time, s.last_time))
    s.last_time = event.time
    if isinstance(event, otf2.events.Metric):
        klass = event.metric
        if isinstance(klass, otf2.definitions.MetricInstance):
            klass = klass.metric_class
        s.classes.add(klass)
        s.pending.append((klass, event.time))
        members = getattr(klass, "members", ())
        if members and members[0].name == "tool:time":
            v.seen("tool-time")
            total = event.values[0]
            if s.tool is not None and total - s.tool[0] > event.time - s.tool[1] + TOOL_SLACK_NS:
                v.add("tool-time", "%s the tracer's total grew by %.3f ms in %.3f ms (to %d at %d)" %
                      (where, (total - s.tool[0]) / 1e6, (event.time - s.tool[1]) / 1e6, total, event.time))
            s.tool = (total, event.time)
        return
    if isinstance(event, otf2.events.BufferFlush):
        # OTF2 writes it itself where a buffer chunk filled, between any two of
        # the writer's records (a Metric and its event too): not the writer's event
        return
    flush_metrics(v, s, where, event)
    if isinstance(event, otf2.events.CallingContextEnter):
        check_unwind(v, s, where, event, True)
        s.open.append((ref(event.calling_context), s.path))
    elif isinstance(event, otf2.events.CallingContextSample):
        check_unwind(v, s, where, event, False)
    elif isinstance(event, otf2.events.CallingContextLeave):
        v.seen("balance")
        cc = event.calling_context
        if not s.open or s.open[-1][0] != ref(cc):
            v.add("balance", "%s CallingContextLeave of %s at %d, innermost open region: %s" %
                  (where, describe(cc), event.time, s.open[-1][0] if s.open else "none"))
            while s.open and s.open[-1][0] != ref(cc):
                s.open.pop()
        elif ref(cc) not in s.path:
            v.add("balance", "%s CallingContextLeave of %s at %d: not on the current calling context" %
                  (where, describe(cc), event.time))
        if s.open:
            s.open.pop()
        s.path = v.tree.path(cc)[:-1]  # OTF2: the parent is the previous context of the next event


def recovered(anchor_path):
    """1 when the archive was rebuilt after an abnormal end (hcafold --recover
    writes the HCATRACE::RECOVERED property into the anchor file; the bindings
    do not read archive properties)."""
    try:
        with open(anchor_path, "rb") as f:
            return b"HCATRACE::RECOVERED" in f.read()
    except OSError:
        return False


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: otf2_conformance.py TRACE.otf2\n")
        return 2
    v = Violations()
    try:
        trace = otf2.reader.Reader(argv[1])
    except KeyError as e:
        v.add("references", "a definition references an undefined one (%s)" % e)
        return v.report(sys.stdout)
    except Exception as e:  # noqa: BLE001 - any reader failure is the answer
        sys.stderr.write("otf2_conformance: %s: cannot read: %s\n" % (argv[1], e))
        return 2
    try:
        v.tree = Tree(trace.definitions, v)
        states = {}
        try:
            for location, event in trace.events if trace.definitions.locations else ():
                s = states.get(ref(location))
                if s is None:
                    s = states[ref(location)] = LocationState(location.name)
                check_event(v, s, location, event)
        except KeyError as e:
            v.add("references", "an event references an undefined definition (%s)" % e)
        except Exception as e:  # noqa: BLE001 - OTF2's errors, whatever their type
            sys.stderr.write("otf2_conformance: %s: cannot read the events: %s\n" % (argv[1], e))
            return 2
        ended_inside = recovered(argv[1])
        for key, s in states.items():
            where = "location %s (%s):" % (key, s.name)
            if not ended_inside:  # a rank that ended abnormally may stop after a Metric
                flush_metrics(v, s, where, None)
            if s.open and not ended_inside:
                v.seen("balance")
                v.add("balance", "%s %d region(s) still open at the end, innermost %s" % (where, len(s.open),
                                                                                         s.open[-1][0]))
    finally:
        trace.close()
    return v.report(sys.stdout)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

# report.sh: end to end, report.html of a traced MPI example opened in headless
# Chromium: self-contained (no script, no external reference), no console
# message, every region of the summary listed (folded or skipped), every link's
# target present, the whole run shown, and its load balance equal to the one
# computed independently from the trace with the OTF2 Python bindings
# (tests/popcheck.py); the variability of each region's instances, per
# location; a screenshot is left in $REPORT_SHOT when set.
. "$(dirname "$0")/lib.sh"
FOLD="$BUILD/bin/hcafold"
CHROMIUM=${CHROMIUM:-chromium}
PY=/usr/bin/python3
headless() { # url args...: Chromium without a display, its log on stderr
    url=$1
    shift
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --enable-logging=stderr --v=0 \
        "$@" "$url"
}
dir=$(fresh_dir)
cd "$dir" || exit 1
traced_mpirun 2 "$EX/mpi_phases" -q -n 60 -p 4 > out 2> err
ok $? "traced run of the MPI example"
trace=$(the_trace)
"$FOLD" -f json,html "$trace" > summary.txt 2> fold.err
ok $? "hcafold -f json,html folds it"
fold_dir=${trace%.otf2}.fold
report=$fold_dir/report.html
check "report.html is written beside fold.json" test -s "$report" -a -s "$fold_dir/fold.json"
grep -Eiq '<script|<link|<img|<iframe|@import|url\(|(src|href)="[a-z]+:|(src|href)="//' "$report"
ok $((1 - $?)) "report.html is self-contained: no script, no external reference"
grep -q 'Regions nest (an OpenMP region inside the burst between two MPI calls, a user region around both), so the shares can add up to more than 100 %' "$report"
ok $? "the regions table says why its shares of the traced time can add up to more than 100 %"

if ! command -v "$CHROMIUM" >/dev/null 2>&1 || ! [ -x "$PY" ] || ! "$PY" -c 'import otf2' 2>/dev/null; then
    why="needs chromium and python3-otf2 (scripts/install-deps)"
    for what in "Chromium sees a page's console error" "report.html loads in Chromium" \
        "no console message" "every region listed, every link resolves" \
        "load balance as computed from the trace" "variability" "screenshot"; do
        ok 0 "$what # SKIP $why"
    done
    cd / && rm -rf "$dir"
    exit 0
fi
# the console check itself: a page with an error is caught
printf '<!DOCTYPE html><html><body><script>no_such_function()</script></body></html>\n' > bad.html
headless "file://$PWD/bad.html" --dump-dom > /dev/null 2> bad.err
grep -q 'CONSOLE.*Uncaught' bad.err
ok $? "Chromium's log shows a page's console error"
headless "file://$PWD/$report" --dump-dom > dom.html 2> chrome.err
ok $? "report.html loads in Chromium"
grep -Ei 'CONSOLE|Uncaught' chrome.err | sed 's/^/# /'
ok "$(grep -Eic 'CONSOLE|Uncaught' chrome.err)" "no console message"
# the DOM as Chromium built it against the summary: every region named there
# (folded and skipped) is a row of the regions table, every #link has its target
"$PY" - summary.txt dom.html > dom.check <<'PYEOF'
import re
import sys
from html.parser import HTMLParser

summary = open(sys.argv[1]).read().splitlines()
names, skipped = [], False
for line in summary:
    m = re.match(r"^ *\d+\. (.*) \[\w+\]$", line)
    if m:
        names.append(m.group(1))
    if line == "skipped:":
        skipped = True
    elif skipped and re.match(r"^    .* \[\w+\]: ", line):
        names.append(re.match(r"^    (.*) \[\w+\]: ", line).group(1))


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.rows, self.cell, self.depth = set(), [], [], None, 0
        self.in_row = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href", "").startswith("#"):
            self.links.append(a["href"][1:])
        if tag == "tr" and "region" in a.get("class", "").split():
            self.in_row, self.cells = True, []
        if self.in_row and tag == "td":
            self.cells.append("")

    def handle_endtag(self, tag):
        if tag == "tr" and self.in_row:
            self.rows.append(self.cells[1])
            self.in_row = False

    def handle_data(self, data):
        if self.in_row and self.cells:
            self.cells[-1] += data


p = Page()
p.feed(open(sys.argv[2]).read())
missing = [n for n in names if n not in p.rows]
dangling = [l for l in p.links if l not in p.ids]
print("regions %d rows %d missing %d links %d dangling %d sections %d" % (
    len(names), len(p.rows), len(missing), len(p.links), len(dangling),
    len([i for i in p.ids if i.startswith("region-")])))
for m in missing + dangling:
    print("# not found: " + m)
PYEOF
sed 's/^/# /' dom.check
read -r _ nnames _ nrows _ nmissing _ nlinks _ ndangling _ nsections < dom.check
folded=$(grep -c '^ *[0-9]*\. .* \[[a-z]*\]$' summary.txt)
ok $((nnames < 2 || nrows != nnames || nmissing != 0 || nlinks == 0 || ndangling != 0 || nsections != folded)) \
    "every region of the summary listed ($nrows of $nnames), each folded one a section ($nsections of $folded), every link resolves ($ndangling of $nlinks dangling)"
shown=$(sed -n 's/.*id="pop-load-balance" data-value="\([0-9.]*\)".*/\1/p' dom.html)
json=$("$PY" -c 'import json, sys; print("%.6f" % json.load(open(sys.argv[1]))["run"]["pop"]["load_balance"])' \
    "$fold_dir/fold.json")
truth=$("$PY" "$TOP/tests/popcheck.py" "$trace")
lb=${truth%% *}
ok "$(awk -v a="$shown" -v b="$lb" -v c="$json" 'BEGIN { d = a - b; e = a - c; print (a != "" && d * d < 1e-8 && e * e < 1e-12) ? 0 : 1 }')" \
    "load balance shown ($shown) = fold.json's ($json) = computed from the trace with python3-otf2 ($lb)"
# variability: per region the used instances of every location add up, the
# spread is ordered, and the page has the table of each folded region
"$PY" - "$fold_dir/fold.json" dom.html > var.check <<'PYEOF'
import json
import sys

fold = json.load(open(sys.argv[1]))
bad = 0
for r in fold["regions"]:
    v = r["variability"]
    d = v["duration_ms"]
    per = v["per_location"]
    if sum(l["instances"] for l in per) != r["instances"]["used"] or not d["min"] <= d["median"] <= d["max"]:
        bad += 1
    if any(not l["min_ms"] <= l["mean_ms"] <= l["max_ms"] for l in per):
        bad += 1
tables = open(sys.argv[2]).read().count('<table class="variability">')
# the per-location table is drawn where two or more locations ran the region
multi = sum(1 for r in fold["regions"] if len(r["variability"]["per_location"]) >= 2)
print("%d %d %d" % (bad, multi, tables))
PYEOF
read -r vbad vregions vtables < var.check
ok $((vbad != 0 || vtables != vregions)) \
    "variability: per-location instances add up to the used ones ($vbad regions wrong), a table per region run by two or more locations ($vtables of $vregions)"
shot=${REPORT_SHOT:-$PWD/report.png}
headless "file://$PWD/$report" --window-size=1200,3000 --screenshot="$shot" > /dev/null 2>&1
check "screenshot of report.html ($shot)" test -s "$shot"
cd / && rm -rf "$dir"

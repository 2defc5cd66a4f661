# inline.sh: end-to-end tests of call paths and names in sampled stacks
# (tests/inline_app.cpp): a physical frame in inlined code is expanded into its
# inline chain, so each of five stage functions shows as the caller of the
# always-inlined helper, at the line where it calls it; names are demangled
# without return type and parameter list (the full signature is the region's
# canonical name); library functions carry their canonical alias (cbrt, not
# cbrtf64) and libc's callers their symbol, never "lib+0xOFFSET"; the unwind
# distances count the expanded nodes. Output and exit code unchanged.
. "$(dirname "$0")/lib.sh"
APP="$BUILD/tests/inline_app"
[ -x "$APP" ] || APP="$TOP/build/tests/inline_app"
SRC="$TOP/tests/inline_app.cpp"
if [ ! -x "$APP" ]; then
    echo "ok 1 # SKIP no C++ compiler: $APP not built"
    exit 0
fi
line_of() { grep -n "LINE:$1\b" "$SRC" | head -1 | cut -d: -f1; }

dir=$(fresh_dir)
cd "$dir" || exit 1
"$APP" 150 > plain.out 2> plain.err
plain_rc=$?
HCATRACE_SAMPLING=5ms LD_PRELOAD="$PRELOAD" "$APP" 150 > traced.out 2> traced.err
traced_rc=$?
ok $((plain_rc != 0 || traced_rc != 0)) "both runs succeed ($plain_rc, $traced_rc)"
check "stdout identical with and without the tracer" cmp plain.out traced.out
ok "$(other_stderr traced.err | grep -c .)" "nothing on stderr but the no-PMU line"
trace=$(the_trace)
check "otf2-print --silent -Werror accepts the trace" valid_otf2 "$trace"
"$TRACESTAT" "$trace" > stat.txt
ok $? "the trace reads back"

# ---- inline chains: stage -> helper, each at its call line ---------------------
helper=$(line_of helper)
all=0
for stage in StageOne StageTwo StageThree StageFour 'StageFive<double>'; do
    call=$(line_of "${stage%<*}")
    c=$(grep "^stack [0-9]* hydro::accumulate<double>@[^ ]*inline_app.cpp:[0-9]* < hydro::$stage@[^ ]*inline_app.cpp:$call < main@" stat.txt |
        awk '{ n += $2 } END { print n + 0 }')
    all=$((all + c))
    ok $((c < 5)) "hydro::$stage (line $call) is the caller of the inlined hydro::accumulate<double> in $c samples"
done
leaf=$(grep '^stack [0-9]* hydro::accumulate<double>@' stat.txt | awk '{ n += $2 } END { print n + 0 }')
ok $((leaf == 0 || all != leaf)) "every sample in the helper has its stage as caller ($all of $leaf)"
bad=$(grep '^stack [0-9]* hydro::accumulate<double>@' stat.txt | awk -v h="$helper" '{ l = $3; sub(/.*:/, "", l); if (l < h - 2 || l > h + 3) print }' | wc -l)
ok "$bad" "samples in the helper carry the lines of its loop (around $helper)"

# ---- names --------------------------------------------------------------------
frames=$(grep '^stack ' stat.txt | cut -d' ' -f3- | tr '<' '\n' | sed 's/^ *//; s/@.*//' | sort -u)
# a frame in a module without symbols is named by the module and its role,
# "libcrypto.so.3 (no symbols)" (libdw's debuginfod client loads libcrypto,
# whose exit handlers a sample can meet): not a parameter list
ok "$(echo "$frames" | grep '(' | grep -vc '\.so[.0-9]* ([^()]*)$')" "no name carries a parameter list"
ok "$(echo "$frames" | grep -c '^double ')" "no name carries a return type (hydro::StageFive<double>)"
ok "$(grep '^stack ' stat.txt | grep -c '+0x')" "no frame is named lib+0xOFFSET"
grep -q '^stack [0-9]* .* < __libc_start_call_main@[^ ]*libc.so.6:0 < __libc_start_main@' stat.txt
ok $? "libc's callers of main are named (__libc_start_call_main < __libc_start_main)"
cbrt=$(grep '^stack [0-9]* \(.* < \)\{0,1\}cbrt@[^ ]*libm.so.6:0 < hydro::Roots@' stat.txt | awk '{ n += $2 } END { print n + 0 }')
ok $((cbrt == 0)) "libm's cbrt carries its canonical name ($cbrt samples)"
ok "$(echo "$frames" | grep -c 'f64$\|f32x$')" "no _FloatN alias names (cbrtf64, scalbnf64)"
otf2-print -G "$trace" > defs.txt 2>&1
grep -q '^REGION .* Name: "hydro::StageFive<double>" <[0-9]*> (Aka. "double hydro::StageFive<double>(double\*, long, double)" <[0-9]*>)' defs.txt
ok $? "the full signature is the region's canonical name"

# ---- unwind distances count the expanded nodes ---------------------------------
# expected (OTF2's definition, the program has no regions): the nodes new since
# the previous sample plus one, the path's length plus one (the undefined root)
# at the first; paths from the definitions
otf2-print "$trace" > events.txt 2>&1
bad=$(cat defs.txt events.txt | awk '
    /^CALLING_CONTEXT / { id = $2; p = $NF; gsub(/[<>]/, "", p); parent[id] = (p ~ /^[0-9]+$/) ? p : -1 }
    /^CALLING_CONTEXT_SAMPLE / {
        match($0, /Calling Context: .* <[0-9]+>, Unwind/); s = substr($0, RSTART, RLENGTH)
        sub(/, Unwind$/, "", s); sub(/.*</, "", s); sub(/>/, "", s)
        match($0, /Unwind Distance: [0-9]+/); ud = substr($0, RSTART + 17, RLENGTH - 17) + 0
        n = 0; for (c = s; c >= 0; c = parent[c]) path[n++] = c
        common = 0
        while (common < n && common < pn && path[n - 1 - common] == prev[pn - 1 - common]) common++
        want = n - common + 1
        if (ud != want) { bad++; if (bad == 1) print "# first: context " s " unwind " ud " want " want > "/dev/stderr" }
        for (i = 0; i < n; i++) prev[i] = path[i]; pn = n; samples++
    }
    END { print (samples ? bad + 0 : 1) }')
ok "$bad" "every sample's unwind distance counts the nodes new since the previous sample"
cd / && rm -rf "$dir"

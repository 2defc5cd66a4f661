# source_dir.sh: end to end, the source lines beside the source bands when the
# trace is read away from the source tree. An example built from a project
# directory with a relative file name (DWARF records "examples/mpi_phases.c" and
# the compilation directory apart) is traced elsewhere and folded from a third
# directory: the trace records the absolute path and the summary and
# report.html show the lines' text; with the sources moved, the fold still
# succeeds and says once which file is not found; with --source-dir the lines
# are back. An older trace's relative names (hcasynth writes "app.c") are found
# below --source-dir too.
. "$(dirname "$0")/lib.sh"
FOLD="$BUILD/bin/hcafold"
SYNTH="$BUILD/tests/hcasynth"
MPICC=${MPICC:-mpicc}
dir=$(fresh_dir)
cd "$dir" || exit 1
mkdir -p proj/examples run elsewhere
cp "$TOP/examples/mpi_phases.c" proj/examples/
(cd proj && "$MPICC" -std=c11 -g -O2 -I"$TOP/include" -o ../app examples/mpi_phases.c -lm)
ok $? "the example builds from its project directory with a relative file name"
(cd run && traced_mpirun 2 ../app -q -n 60 -p 4 > out 2> err)
ok $? "traced run"
trace=$dir/run/$(cd run && the_trace)
src=$dir/proj/examples/mpi_phases.c
stencil_text='const double r = run_kernel(4 \* size);'

# folded from another directory: the recorded absolute path is read
cd elsewhere || exit 1
"$FOLD" -f json,html -o here "$trace" > here.txt 2> here.err
ok $? "hcafold folds it from another directory (exit 0)"
grep -q "^    source .* phase_stencil  *$src:[0-9]* .*)  | $stencil_text\$" here.txt
ok $? "the summary's band names the absolute path and shows its source line"
grep -q "<td class=\"src\">    $stencil_text</td>" here/report.html
ok $? "report.html shows the source line beside the band"
ok "$(grep -c 'source lines not shown' here.err)" "nothing said about missing sources"

# the sources moved away: the fold still succeeds and says which file is missing, once
mv "$dir/proj" "$dir/moved"
"$FOLD" -f json,html -o gone "$trace" > gone.txt 2> gone.err
ok $? "with the sources moved the fold still succeeds (exit 0)"
said=$(grep -c "^hcafold: source lines not shown: $src not found (use --source-dir)\$" gone.err)
ok $((said != 1)) "it says once that the file is not found and how to point at it ($said times)"
grep -q 'file not found</span>' gone/report.html && grep -q "Source lines not shown: <code>$src</code> not found" gone/report.html
ok $? "report.html says which file is not found"
grep -q "phase_stencil .*)  | " gone.txt
ok $((1 - $?)) "no source text in the summary"

# --source-dir: the moved tree is searched with the recorded path's tails
"$FOLD" -f json,html -o moved --source-dir "$dir/moved" "$trace" > moved.txt 2> moved.err
ok $? "hcafold --source-dir folds it (exit 0)"
grep -q "^    source .* phase_stencil  *$src:[0-9]* .*)  | $stencil_text\$" moved.txt
ok $? "--source-dir: the summary shows the source line again"
grep -q "<td class=\"src\">    $stencil_text</td>" moved/report.html
ok $? "--source-dir: report.html shows it again"
ok "$(grep -c 'source lines not shown' moved.err)" "--source-dir: nothing said about missing sources"
"$FOLD" -q -f json -o bad --source-dir "$dir/no-such-dir" "$trace" 2> bad.err
ok $? "a --source-dir that is not a directory does not stop the fold"
grep -q "^hcafold: --source-dir $dir/no-such-dir: not a directory (ignored)\$" bad.err
ok $? "and is said in one line"

# an older trace: relative file names ("app.c"), the file in a --source-dir
cd "$dir" || exit 1
"$SYNTH" --out syn --instances 80 --duration-ms 20 --period-ms 5 --counter instructions:0-1=5e8 \
    --functions phase_a:0-0.5,phase_b:0.5-1 --seed 3 > /dev/null
ok $? "synthesizer writes a trace with relative file names"
mkdir -p oldsrc
seq 1 500 | sed 's/^/text of line /' > oldsrc/app.c
"$FOLD" -f json -o syn1 syn > syn1.txt 2> syn1.err
grep -q '^hcafold: source lines not shown: app.c not found (use --source-dir)$' syn1.err
ok $? "older trace without --source-dir: the relative name is said not found"
"$FOLD" -f json -o syn2 --source-dir oldsrc syn > syn2.txt 2> syn2.err
awk '/^    source .* phase_a / { n++; split($4, fl, ":"); want = "text of line " fl[2];
     if (index($0, ")  | " want) && substr($0, length($0) - length(want) + 1) == want) good++ }
     END { exit !(n > 0 && good == n) }' syn2.txt
ok $? "older trace with --source-dir: the band's own line's text is shown"
cd / && rm -rf "$dir"

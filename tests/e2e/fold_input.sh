# fold_input.sh: hcafold on input that must not break it (issue 12): a huge --grid,
# a counter the trace lacks, local definition files cut or filled with random bytes,
# a trace written by another OTF2 tool, a re-fold into the same directory (no stale
# plots, no empty gnuplot.log), symbolic links planted in the output directory.
. "$(dirname "$0")/lib.sh"
SYNTH="$BUILD/tests/hcasynth"
FOLD="$BUILD/bin/hcafold"
dir=$(fresh_dir)
cd "$dir" || exit 1
"$SYNTH" --out two --ranks 2 --instances 100 --duration-ms 20 --period-ms 5 \
    --counter instructions:0-0.5=300e6,0.5-1=800e6 > /dev/null
ok $? "synthetic trace written"

# --grid: a size that would overflow or exhaust memory is refused before any work
for g in 2305843009213693952 18446744073709551615 10000000; do
    "$FOLD" -q --grid $g two > out 2> err
    rc=$?
    ok $((rc != 2)) "--grid $g: exit 2 ($rc)"
    grep -q -- "^hcafold: --grid needs a number from 3 to 10000, not '$g'$" err
    ok $? "--grid $g: says the range"
done

# a counter the trace does not have: a usage error naming the ones it has
"$FOLD" -q -c nosuch two > out 2> err
rc=$?
ok $((rc != 2)) "-c nosuch: exit 2 ($rc)"
grep -q "has no counter 'nosuch' (its counters: instructions)$" err
ok $? "-c nosuch: names the trace's counters"
ok $(($(wc -l < err) != 1)) "-c nosuch: one line"

# local definitions cut to 0 or 1 byte, or random: an error, never a different fold
for how in empty one random; do
    rm -rf cut && cp -r two cut
    def=$(ls cut/traces/*.def | head -1)
    case $how in
    empty) : > "$def" ;;
    one) head -c 1 two/traces/$(basename "$def") > "$def" ;;
    random) head -c 600 /dev/urandom > "$def" ;;
    esac
    "$FOLD" -q cut > out 2> err
    rc=$?
    ok $((rc != 3)) "local definitions $how: exit 3 ($rc)"
    grep -q "^hcafold: .*local definitions" err
    ok $? "local definitions $how: says which file"
done

# a trace another OTF2 tool wrote: said so, not blamed on HCATRACE_SAMPLING
"$SYNTH" --out foreign --creator "Score-P 8.4" --instances 50 --period-ms 100000 > /dev/null
"$FOLD" -q foreign > out 2> err
rc=$?
ok $((rc != 4)) "another tool's trace: exit 4 ($rc)"
grep -q "was written by Score-P 8.4, not by hcatrace" err
ok $? "another tool's trace: names its writer"

# re-fold into the same directory: only this fold's files; no empty gnuplot.log
"$SYNTH" --out kinds --kind user --instances 100 --duration-ms 20 --period-ms 5 \
    --counter instructions:0-1=300e6 > /dev/null
"$FOLD" -q -o refold two && "$FOLD" -q -o refold kinds
ok $? "two folds into one directory"
ls refold | grep -q allreduce
ok $((1 - $?)) "re-fold: no file of the region folded before"
ls refold/01-iteration.png > /dev/null 2>&1
ok $? "re-fold: this fold's plot is there"
[ ! -e refold/gnuplot.log ] || [ -s refold/gnuplot.log ]
ok $? "re-fold: no empty gnuplot.log"
echo mine > refold/notes.txt
"$FOLD" -q -o refold kinds
[ "$(cat refold/notes.txt)" = mine ]
ok $? "re-fold: files hcafold does not write are left alone"

# symbolic links planted in an existing output directory are not written through
mkdir planted && echo secret > target
ln -s ../target planted/fold.json
ln -s ../target planted/01-iteration.gp
"$FOLD" -q -o planted kinds > out.txt 2> err
[ "$(cat target)" = secret ]
ok $? "planted symbolic links: their target is untouched"
[ -f planted/fold.json ] && [ ! -L planted/fold.json ]
ok $? "planted symbolic links: fold.json written as a file of its own"

# output directories 0755 whatever the umask
(umask 000 && "$FOLD" -q -f json -o made/here kinds)
[ "$(stat -c %a made made/here | tr '\n' ' ')" = "755 755 " ]
ok $? "umask 000: output directories 0755"
cd / && rm -rf "$dir"

# install.sh: configure takes the install directories as autoconf does
# (--prefix DIR, --libdir=DIR); `make install` puts the library (in LIBDIR),
# the hcatrace command, the header, the man pages, the docs and the model files
# under the prefix; the installed hcatrace finds the library there, answers
# --help and --version, traces a program and says where the trace is (not
# with -q); the installed examples run; `make uninstall` removes every
# installed file; the installed hcatrace --list-events finds its lister in LIBDIR.
. "$(dirname "$0")/lib.sh"
stage=$(fresh_dir)
(cd "$TOP" && ./configure --prefix /opt/hca --libdir=/opt/hca/lib64 --config="$stage/c.mk") > /dev/null 2>&1
ok $? "configure --prefix DIR --libdir=DIR"
grep -q '^PREFIX = /opt/hca$' "$stage/c.mk" && grep -q '^LIBDIR = /opt/hca/lib64$' "$stage/c.mk" &&
    grep -q '^BINDIR = $(PREFIX)/bin$' "$stage/c.mk"
ok $? "config.mk has the prefix, the libdir, and the bindir following the prefix"
rm -f "$stage/c.mk"
make -s -C "$TOP" BUILD="${BUILD#$TOP/}" install PREFIX=/opt/hca LIBDIR=/opt/hca/lib64 DESTDIR="$stage" \
    > /dev/null 2>&1
ok $? "make install into a staging directory"
for f in lib64/libhcatrace.so lib64/hcatrace/list-events bin/hcatrace bin/hcafold include/hcatrace.h share/man/man1/hcatrace.1 \
         share/doc/hcatrace/trace-format.md share/doc/hcatrace/configuration.md \
         share/man/man1/hcafold.1 share/hcatrace/models/hca-snb.model share/hcatrace/models/generic.model; do
    check "installed $f" test -f "$stage/opt/hca/$f"
done
cflags=$(PKG_CONFIG_PATH="$stage/opt/hca/lib64/pkgconfig" pkg-config --cflags hcatrace 2>/dev/null | sed "s/ *$//")
ok "$([ "$cflags" = "-I/opt/hca/include" ]; echo $?)" "pkg-config --cflags hcatrace gives the markers' include directory ($cflags)"
dir=$(fresh_dir)
cd "$dir" || exit 1
if [ "${SANITIZED:-0}" = 1 ]; then
    LD_PRELOAD="$(gcc -print-file-name=libasan.so)" "$stage/opt/hca/bin/hcatrace" -o run "$EX/omp_free_serial" 3 \
        > out 2> err
else
    "$stage/opt/hca/bin/hcatrace" -o run "$EX/omp_free_serial" 3 > out 2> err
fi
ok $(($? != 3)) "installed hcatrace keeps the exit code"
check "installed hcatrace writes a valid trace in -o DIR" valid_otf2 run/traces.otf2
grep -q "^hcatrace: trace written to run/traces.otf2 (1 process, 1 location, " err
ok $? "it says where the trace is, at the end, by default"
if [ "${SANITIZED:-0}" = 1 ]; then
    LD_PRELOAD="$(gcc -print-file-name=libasan.so)" "$stage/opt/hca/bin/hcatrace" -q --output=quiet \
        "$EX/omp_free_serial" 3 > out 2> err
else
    "$stage/opt/hca/bin/hcatrace" -q --output=quiet "$EX/omp_free_serial" 3 > out 2> err
fi
ok $(($? != 3 || $(other_stderr err | grep -c .) != 0)) "-q: no message, same exit code"
check "-q --output=DIR: the trace is there" test -f quiet/traces.otf2
version=$(sed -n 's/^VERSION := //p' "$TOP/Makefile")
out=$("$stage/opt/hca/bin/hcatrace" --version)
ok $(($? != 0)) "hcatrace --version: $out"
ok "$([ "$out" = "hcatrace $version" ]; echo $?)" "the version is the Makefile's ($version)"
"$stage/opt/hca/bin/hcatrace" --help > help.txt 2>&1
ok $(($? != 0)) "hcatrace --help exits 0"
grep -q -- '--output DIR' help.txt && grep -q -- '--quiet' help.txt && grep -q -- '--list-models' help.txt &&
    grep -q -- '--list-events' help.txt
ok $? "its help names --output, --quiet, --list-models, --list-events"
"$stage/opt/hca/bin/hcatrace" --list-events > events.txt 2>&1
ok $(($? != 0)) "installed hcatrace --list-events exits 0 (the lister found in LIBDIR/hcatrace)"
grep -Eq '^  task-clock +type 1 config 0x1 ' events.txt
ok $? "and lists task-clock with its encoding"
"$stage/opt/hca/bin/hcatrace" --bogus ./x > /dev/null 2> bogus.err
ok $(($? != 2)) "an unknown option is a usage error (2)"
grep -q "^hcatrace: unknown option '--bogus'" bogus.err
ok $? "and says which"
"$stage/opt/hca/bin/hcatrace" --list-models > models.txt 2>&1
ok $(($? != 0)) "hcatrace --list-models exits 0"
grep -q '^generic ' models.txt && grep -q '^nethercote ' models.txt
ok $? "and lists the shipped models generic and nethercote"
"$stage/opt/hca/bin/hcatrace" > /dev/null 2>&1
ok $(($? != 2)) "hcatrace without a command is a usage error (2)"
examples=$stage/opt/hca/share/hcatrace/examples
check "the installed trace-examples.sh is executable" test -x "$examples/trace-examples.sh"
if [ "${SANITIZED:-0}" = 1 ]; then
    ok 0 "the installed examples run # SKIP the sanitized library needs the ASan runtime preloaded"
else
    HCA_EXAMPLE_ITERATIONS=30 "$examples/trace-examples.sh" examples > examples.out 2>&1
    ok $? "the installed examples run (trace-examples.sh: trace, check, fold)"
    check "and fold into report.html" test -s examples/mpi_phases.fold/report.html
fi
make -s -C "$TOP" BUILD="${BUILD#$TOP/}" uninstall PREFIX=/opt/hca LIBDIR=/opt/hca/lib64 DESTDIR="$stage" > /dev/null 2>&1
ok "$(find "$stage" -type f | wc -l)" "make uninstall leaves no installed file"
cd / && rm -rf "$dir" "$stage"

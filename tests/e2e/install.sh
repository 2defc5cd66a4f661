# install.sh: `make install` puts the library, the hcatrace command, the header,
# the man pages, the docs and the model files under the prefix; the installed hcatrace traces a
# program; `make uninstall` removes every installed file.
. "$(dirname "$0")/lib.sh"
stage=$(fresh_dir)
make -s -C "$TOP" BUILD="${BUILD#$TOP/}" install PREFIX=/opt/hca DESTDIR="$stage" > /dev/null 2>&1
ok $? "make install into a staging directory"
for f in lib/libhcatrace.so bin/hcatrace include/hcatrace.h share/man/man1/hcatrace.1 \
         share/doc/hcatrace/trace-format.md share/doc/hcatrace/configuration.md \
         share/man/man1/hcafold.1 share/hcatrace/models/hca-snb.model share/hcatrace/models/generic.model; do
    check "installed $f" test -f "$stage/opt/hca/$f"
done
dir=$(fresh_dir)
cd "$dir" || exit 1
if [ "${SANITIZED:-0}" = 1 ]; then
    LD_PRELOAD="$(gcc -print-file-name=libasan.so)" "$stage/opt/hca/bin/hcatrace" -o run "$EX/omp_free_serial" 3 > out
else
    "$stage/opt/hca/bin/hcatrace" -o run "$EX/omp_free_serial" 3 > out
fi
ok $(($? != 3)) "installed hcatrace keeps the exit code"
check "installed hcatrace writes a valid trace in -o DIR" valid_otf2 run/traces.otf2
"$stage/opt/hca/bin/hcatrace" > /dev/null 2>&1
ok $(($? != 2)) "hcatrace without a command is a usage error (2)"
make -s -C "$TOP" BUILD="${BUILD#$TOP/}" uninstall PREFIX=/opt/hca DESTDIR="$stage" > /dev/null 2>&1
ok "$(find "$stage" -type f | wc -l)" "make uninstall leaves no installed file"
cd / && rm -rf "$dir" "$stage"

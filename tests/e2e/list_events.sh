#!/bin/sh
# list_events.sh: `hcatrace --list-events` (LIBDIR/hcatrace/list-events) lists the software and
# generic hardware events with what perf_event_open says here, and what it says is true: for
# task-clock and cycles the verdict matches a perf_event_open made independently (python3
# ctypes); its count of opened events matches its lines; under LIBPFM_FORCE_PMU=skl it lists
# Skylake's events with their encodings (INST_RETIRED.ANY_P is event 0xC0, umask 0x00 in
# Intel's SDM; BR_INST_RETIRED.NEAR_CALL is 0xC4, umask 0x02).
. "$(dirname "$0")/lib.sh"
LIST="$BUILD/lib/hcatrace/list-events"
dir=$(fresh_dir)
cd "$dir" || exit 1
"$LIST" > list.txt 2> list.err
ok $? "list-events exits 0"
ok "$(grep -c . list.err)" "and writes nothing on stderr"
for e in task-clock page-faults context-switches cycles instructions; do
    grep -Eq "^  $e +type [0-9]+ config 0x[0-9a-f]+ +(opens|refused: E[A-Z]+ )" list.txt
    ok $? "it lists $e with its encoding and a verdict"
done
# perf_event_open(type, config) alone, user space, disabled, as the listing says it tries
python3 - > independent.txt <<'EOF'
import ctypes, os, platform, struct
nr = {"x86_64": 298, "aarch64": 241}.get(platform.machine())
libc = ctypes.CDLL(None, use_errno=True)
for name, typ, config in (("task-clock", 1, 1), ("cycles", 0, 0)):
    attr = bytearray(128)
    struct.pack_into("IIQ", attr, 0, typ, 128, config)
    struct.pack_into("Q", attr, 40, 1 | 1 << 5 | 1 << 6)  # disabled, exclude_kernel, exclude_hv
    buf = (ctypes.c_char * 128).from_buffer(attr)
    fd = libc.syscall(nr, buf, 0, -1, -1, 0) if nr else -1
    print(name, "opens" if fd >= 0 else "refused")
    if fd >= 0:
        os.close(fd)
EOF
for e in task-clock cycles; do
    want=$(awk -v e="$e" '$1 == e { print $2 }' independent.txt)
    got=$(awk -v e="$e" '$1 == e { print ($0 ~ / opens$/) ? "opens" : "refused" }' list.txt)
    ok "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$e: the listing says '$got', perf_event_open made by python3 '$want'"
done
opened=$(grep -c ' opens$' list.txt)
said=$(sed -n 's/^opened here: \([0-9]*\) of [0-9]* software events, \([0-9]*\) of .*/\1 \2/p' list.txt)
ok "$([ -n "$said" ] && [ $((${said% *} + ${said#* })) -eq "$opened" ]; echo $?)" \
    "its count of opened events ($said) matches its lines ($opened)"
if ! grep -q 'PMU events of' list.txt; then
    grep -q 'libpfm4 detects no core PMU on this machine' list.txt
    ok $? "no core PMU here: it says so"
else
    ok 0 "a core PMU is detected: its events are listed"
fi
LIBPFM_FORCE_PMU=skl "$LIST" > skl.txt 2>&1
ok $? "under LIBPFM_FORCE_PMU=skl it exits 0"
grep -q '^PMU events of skl (Intel Skylake), from libpfm4, forced by LIBPFM_FORCE_PMU' skl.txt
ok $? "it lists the forced PMU, and says it was forced"
grep -Eq '^  skl::INST_RETIRED:ANY_P +type [0-9]+ config 0xc0 ' skl.txt
ok $? "skl::INST_RETIRED:ANY_P is encoded as event 0xc0 umask 0x00"
grep -Eq '^  skl::BR_INST_RETIRED:NEAR_CALL +type [0-9]+ config 0x2c4 ' skl.txt
ok $? "skl::BR_INST_RETIRED:NEAR_CALL is encoded as event 0xc4 umask 0x02"
ok $(($(grep -c '^  skl::' skl.txt) < 100)) "Skylake's events are there ($(grep -c '^  skl::' skl.txt) lines)"
cd / && rm -rf "$dir"

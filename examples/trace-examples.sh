#!/bin/sh
# trace-examples.sh: traces the bundled examples with hcatrace, as a user
# would, checks each trace with otf2-print, folds the C example with hcafold
# and says where the traces, the plots and report.html are. Runs from the
# source tree (after make) and from an installation (share/hcatrace/examples,
# the example programs in its bin/; `make install` fills in the directories).
# Usage: trace-examples.sh [OUTDIR]   (default: ./example-traces)
# HCA_EXAMPLE_ITERATIONS: iterations of the C example (default 300).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bindir='@BINDIR@'
if [ -x "$here/../build/bin/hcafold" ]; then # the source tree
    hcatrace="$here/../scripts/hcatrace" hcafold="$here/../build/bin/hcafold" ex="$here/../build/examples"
else # installed: <prefix>/share/hcatrace/examples; the prefix may have moved (DESTDIR)
    case "$bindir" in @*) bindir="$here/../../../bin" ;; esac
    [ -x "$bindir/hcafold" ] || bindir="$here/../../../bin"
    hcatrace="$bindir/hcatrace" hcafold="$bindir/hcafold" ex="$here/bin"
fi
[ -x "$hcafold" ] && [ -x "$ex/mpi_phases" ] ||
    { echo "trace-examples: hcafold or the examples not found; run ./configure && make first" >&2; exit 1; }
out=${1:-example-traces}
mkdir -p "$out"
out=$(cd "$out" && pwd)
mpirun_flags="--oversubscribe"
[ "$(id -u)" = 0 ] && mpirun_flags="$mpirun_flags --allow-run-as-root"

run() { # name np program args...
    name=$1 np=$2 prog=$3
    shift 3
    dir="$out/$name"
    rm -rf "$dir"
    echo "== $name: hcatrace -o $dir mpirun -np $np $(basename "$prog") $*"
    "$hcatrace" -q -o "$dir" mpirun $mpirun_flags -np "$np" "$prog" "$@"
    otf2-print --silent -Werror "$dir/traces.otf2" > /dev/null
    events=$(otf2-print "$dir/traces.otf2" | grep -c 'CALLING_CONTEXT_ENTER')
    echo "   trace: $dir/traces.otf2 (valid OTF2, $events region entries)"
}

run mpi_phases 2 "$ex/mpi_phases" -n "${HCA_EXAMPLE_ITERATIONS:-300}" -p 4
if [ -x "$ex/mpi_ring" ]; then run mpi_ring 2 "$ex/mpi_ring" 50; fi
(export OMP_NUM_THREADS=1 HCATRACE_SAMPLING=5ms; run halo3d 3 "$ex/halo3d" -n 60)
echo "== hcafold $out/mpi_phases"
"$hcafold" -o "$out/mpi_phases.fold" "$out/mpi_phases"
echo "== hcafold $out/halo3d"
"$hcafold" -o "$out/halo3d.fold" "$out/halo3d"
echo
echo "Traces: $out/mpi_phases/traces.otf2, $out/mpi_ring/traces.otf2, $out/halo3d/traces.otf2 (otf2-print -G ... | less)"
echo "Folded: $out/mpi_phases.fold/report.html and $out/halo3d.fold/report.html (open them in a browser), fold.json, plots *.png and *.svg"

#!/bin/sh
# trace-examples.sh: traces the bundled examples with libhcatrace.so, as a user
# would, checks each trace with otf2-print, folds the C example with hcafold
# and says where the traces and the plots are.
# Usage: examples/trace-examples.sh [OUTDIR]   (default: ./example-traces)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
lib="$top/build/lib/libhcatrace.so"
ex="$top/build/examples"
out=${1:-example-traces}
[ -f "$lib" ] || { echo "trace-examples: $lib not found; run ./configure && make first" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
mpirun_flags="--oversubscribe"
[ "$(id -u)" = 0 ] && mpirun_flags="$mpirun_flags --allow-run-as-root"

run() { # name np program args...
    name=$1 np=$2 prog=$3
    shift 3
    dir="$out/$name"
    rm -rf "$dir"
    echo "== $name: LD_PRELOAD=libhcatrace.so mpirun -np $np $(basename "$prog") $*"
    HCATRACE_DIR="$dir" LD_PRELOAD="$lib" mpirun $mpirun_flags -np "$np" "$prog" "$@"
    otf2-print --silent -Werror "$dir/traces.otf2" > /dev/null
    events=$(otf2-print "$dir/traces.otf2" | grep -c 'CALLING_CONTEXT_ENTER')
    echo "   trace: $dir/traces.otf2 (valid OTF2, $events MPI call regions)"
}

run mpi_phases 2 "$ex/mpi_phases" -n 300 -p 4
[ -x "$ex/mpi_ring" ] && run mpi_ring 2 "$ex/mpi_ring" 50
(export OMP_NUM_THREADS=1 HCATRACE_SAMPLING=5ms; run halo3d 3 "$ex/halo3d" -n 60)
echo "== hcafold $out/mpi_phases"
"$top/build/bin/hcafold" -o "$out/mpi_phases.fold" "$out/mpi_phases"
echo "== hcafold $out/halo3d"
"$top/build/bin/hcafold" -o "$out/halo3d.fold" "$out/halo3d"
echo
echo "Traces: $out/mpi_phases/traces.otf2, $out/mpi_ring/traces.otf2, $out/halo3d/traces.otf2 (otf2-print -G ... | less)"
echo "Folded: $out/mpi_phases.fold/fold.json, $out/halo3d.fold/fold.json; plots: *.fold/*.png (and .svg)"

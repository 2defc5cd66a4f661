# mpi_fortran.sh: end-to-end test of the Fortran bindings (use mpi) on the
# Fortran example with 1, 2 and 4 ranks: every call the program counts is in the
# trace, call sites name the Fortran caller and line, receive records carry the
# sender, output and exit code unchanged.
. "$(dirname "$0")/lib.sh"
SRC="$TOP/examples/mpi_ring.f90"
ITER=21
if ! [ -x "$EX/mpi_ring" ]; then # optional (configure says so)
    ok 0 "Fortran tests # SKIP no Fortran MPI compiler (Debian package gfortran)"
    exit 0
fi

for np in 1 2 4; do
    dir=$(fresh_dir)
    cd "$dir" || exit 1
    plain_mpirun "$np" "$EX/mpi_ring" $ITER > plain.out 2>&1
    plain_rc=$?
    traced_mpirun "$np" "$EX/mpi_ring" $ITER > traced.out 2> traced.err
    traced_rc=$?
    ok $((plain_rc != 0 || traced_rc != 0)) "fortran np=$np: both runs succeed ($plain_rc, $traced_rc)"
    check "fortran np=$np: stdout identical" cmp plain.out traced.out
    trace=$(the_trace)
    check "fortran np=$np: otf2-print --silent -Werror accepts the trace" valid_otf2 "$trace"
    "$TRACESTAT" "$trace" > stat.txt
    bad=0
    for r in $(seq 0 $((np - 1))); do
        want=$(sed -n "s/^ *mpi_ring: rank *$r calls *\([0-9]*\) .*/\1/p" traced.out)
        got=$(awk -v r="$r" '$1 == "location" && $4 == r { print $8 }' stat.txt)
        [ -n "$want" ] && [ "$want" = "$got" ] || { bad=1; echo "# rank $r: program counted '$want', trace has '$got'"; }
    done
    ok $bad "fortran np=$np: MPI calls per rank in the trace = calls counted by the program"
    ok "$(grep '^location ' stat.txt | grep -vc 'balanced yes monotonic yes')" \
        "fortran np=$np: balanced and monotonic on every location"
    # gfortran 12 gives a wrong line to calls whose arguments are all plain
    # variables under `use mpi` (MPI_Init, Barrier, Comm_free, Finalize): those
    # are checked for their caller only
    for m in f_sendrecv:MPI_Sendrecv f_allreduce:MPI_Allreduce f_waitall_ignore:MPI_Waitall \
             f_waitall_status:MPI_Waitall f_isend:MPI_Isend f_bcast:MPI_Bcast f_gather:MPI_Gather; do
        name=${m%%:*}; region=${m#*:}
        line=$(marker_line "$SRC" "$name")
        grep -q "^callsite $region mpi_ring [^ ]*mpi_ring.f90:$line " stat.txt
        ok $? "fortran np=$np: $region at mpi_ring.f90:$line is its own call site"
    done
    for region in MPI_Init MPI_Barrier MPI_Comm_free MPI_Finalize; do
        grep -q "^callsite $region mpi_ring [^ ]*mpi_ring.f90:" stat.txt
        ok $? "fortran np=$np: $region called from mpi_ring"
    done
    irecv=$(awk '$2 == "irecv" { print $3 }' stat.txt)
    isend=$(awk '$2 == "isend" { print $3 }' stat.txt)
    ok $((irecv != np * ITER || isend != irecv)) "fortran np=$np: every Irecv completed with its sender ($irecv)"
    cd / && rm -rf "$dir"
done

#!/bin/sh
# layering.sh: the tracer's files form layers, not a circle. File A depends on
# file B when A's object uses (calls, reads) a symbol that B's object defines,
# as the linker sees them (`nm`); calls through function pointers are not
# links and do not count. Over the objects of libhcatrace.so (instrument/*.c
# and src/*.c) this graph must be acyclic; any circle is reported with its
# files and the symbols that close it. A built-in case with a known circle
# shows that the check can fail.
. "$(dirname "$0")/lib.sh"

OBJ="$BUILD/obj/lib"

# deps OBJECT...: one line "A B SYMBOL" per use by A of a symbol defined by B
# (A, B: the objects' paths as given)
deps() {
    for o in "$@"; do
        nm -g --defined-only "$o" | awk -v f="$o" 'NF == 3 { print "D", f, $3 }'
        nm -u "$o" | awk -v f="$o" '{ print "U", f, $NF }'
    done | awk '
        $1 == "D" { def[$3] = $2; next }
        { use[++n] = $2 " " $3 }
        END {
            for (i = 1; i <= n; i++) {
                split(use[i], u, " ")
                if ((u[2] in def) && def[u[2]] != u[1])
                    print u[1], def[u[2]], u[2]
            }
        }' | sort
}

# cycles: reads deps lines; prints one line "cycle: A -> B -> ... -> A (via
# SYM, SYM, ...)" per strongly connected set of files, nothing when acyclic.
cycles() {
    awk '
        function strong(v,    i, w) {
            idx[v] = low[v] = counter++
            stk[++sp] = v
            onst[v] = 1
            for (i = 1; i <= nadj[v]; i++) {
                w = adj[v, i]
                if (!(w in idx)) {
                    strong(w)
                    if (low[w] < low[v]) low[v] = low[w]
                } else if (onst[w] && idx[w] < low[v])
                    low[v] = idx[w]
            }
            if (low[v] == idx[v]) {
                ncomp++
                csize[ncomp] = 0
                croot[ncomp] = v
                do {
                    w = stk[sp--]
                    onst[w] = 0
                    comp[w] = ncomp
                    csize[ncomp]++
                } while (w != v)
            }
        }
        {
            if (!(($1, $2) in edge)) {
                edge[$1, $2] = $3
                adj[$1, ++nadj[$1]] = $2
            }
            if (!($1 in seen)) { seen[$1] = 1; node[++nn] = $1 }
            if (!($2 in seen)) { seen[$2] = 1; node[++nn] = $2 }
        }
        END {
            for (k = 1; k <= nn; k++)
                if (!(node[k] in idx)) strong(node[k])
            for (c = 1; c <= ncomp; c++) {
                if (csize[c] < 2) continue
                # the shortest way from the root back to itself inside the set
                r = croot[c]
                split("", prev)
                head = tail = 1
                q[1] = r
                found = ""
                while (head <= tail && found == "") {
                    v = q[head++]
                    for (i = 1; i <= nadj[v]; i++) {
                        w = adj[v, i]
                        if (comp[w] != c) continue
                        if (w == r) { found = v; break }
                        if (!(w in prev)) { prev[w] = v; q[++tail] = w }
                    }
                }
                path = r
                via = edge[found, r]
                for (v = found; v != r; v = prev[v]) {
                    path = v " -> " path
                    via = edge[prev[v], v] ", " via
                }
                members = ""
                for (k = 1; k <= nn; k++)
                    if (comp[node[k]] == c) members = members " " node[k]
                print "cycle: " r " -> " path " (via " via "); in the circle:" members
            }
        }'
}

# layers: reads deps lines of an acyclic graph; prints "layer N: FILES", where
# a file's layer is one more than the highest layer of the files it uses.
layers() {
    awk '
        function depth(v,    i, d, m) {
            if (v in lay) return lay[v]
            m = 0
            for (i = 1; i <= nadj[v]; i++) {
                d = depth(adj[v, i]) + 1
                if (d > m) m = d
            }
            return lay[v] = m
        }
        {
            if (!(($1, $2) in edge)) { edge[$1, $2] = 1; adj[$1, ++nadj[$1]] = $2 }
            if (!($1 in seen)) { seen[$1] = 1; node[++nn] = $1 }
            if (!($2 in seen)) { seen[$2] = 1; node[++nn] = $2 }
        }
        END {
            top = 0
            for (k = 1; k <= nn; k++) if (depth(node[k]) > top) top = depth(node[k])
            for (l = 0; l <= top; l++) {
                line = ""
                for (k = 1; k <= nn; k++) if (lay[node[k]] == l) line = line " " node[k]
                print "layer " l ":" line
            }
        }'
}

# ---- the check fails on a known circle (a -> b -> c -> a; d only uses a) ----
tmp=$(fresh_dir)
trap 'rm -rf "$tmp"' EXIT
(
    cd "$tmp" || exit 1
    echo 'int b(void); int a(void) { return b(); }' > a.c
    echo 'int c(void); int b(void) { return c(); }' > b.c
    echo 'int a(void); int c(void) { return a() + 1; }' > c.c
    echo 'int a(void); int d(void) { return a(); }' > d.c
    for f in a b c d; do ${CC:-cc} -c -o $f.o $f.c || exit 1; done
    deps a.o b.o c.o d.o | cycles > cycles.txt
)
grep -q '^cycle: a.o -> b.o -> c.o -> a.o (via b, c, a); in the circle: a.o b.o c.o$' "$tmp/cycles.txt" &&
    [ "$(wc -l < "$tmp/cycles.txt")" -eq 1 ]
ok $? "the check reports a known circle of three files with their symbols (and not a file outside it)"

# ---- the library ----
missing=0
for f in "$TOP"/instrument/*.c; do
    [ -f "$OBJ/instrument/$(basename "$f" .c).o" ] || missing=$((missing + 1))
done
ok $missing "every instrument/*.c has its object in $OBJ ($missing missing)"

cd "$OBJ" || exit 1
deps instrument/*.o src/*.o > "$tmp/deps.txt"
[ -s "$tmp/deps.txt" ]
ok $? "the library's files use each other's symbols ($(wc -l < "$tmp/deps.txt") uses)"

cycles < "$tmp/deps.txt" > "$tmp/cycles.txt"
sed 's/^/# /' "$tmp/cycles.txt"
[ ! -s "$tmp/cycles.txt" ]
ok $? "no circle among the tracer's files"

# the shape, for the reader of the log: each layer's files, sorted
if [ ! -s "$tmp/cycles.txt" ]; then
    layers < "$tmp/deps.txt" | while read -r label files; do
        echo "# $label $(echo "$files" | tr ' ' '\n' | sed 's/\.o$/.c/' | sort | tr '\n' ' ' | sed 's/ $//')"
    done
fi

# ---- declarations: each file's functions and variables in its own header ----
# A declaration is a header line that starts in column 0 and names the symbol
# (uses inside inline functions are indented). Only the tracer's own names
# (hct...) count: the others (MPI_*, GOMP_*, pthread_create, hcatrace_*,
# ompt_start_tool) are interfaces declared by their libraries' headers.
declared_in() { # SYMBOL: the instrument/ headers that declare it
    (cd "$TOP/instrument" && grep -lE "^[A-Za-z_][^;{]*[^A-Za-z0-9_]$1([ ()[;]|\$)" ./*.h | sed 's#^\./##')
}
bad=0
for o in instrument/*.o; do
    f=$(basename "$o" .o)
    for s in $(nm -g --defined-only "$o" | awk 'NF == 3 && $3 ~ /^hct/ { print $3 }'); do
        where=$(declared_in "$s" | tr '\n' ' ' | sed 's/ $//')
        if [ "$where" != "$f.h" ]; then
            echo "# $f.c defines $s, declared in: ${where:-nothing} (want $f.h)"
            bad=$((bad + 1))
        fi
    done
done
ok $bad "each file's functions are declared in its own header and only there ($bad misplaced)"

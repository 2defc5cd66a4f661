/* hct_line_tables.c: compact copies of compilation units' line tables (see
 * hct_line_tables.h). A unit's table is read at its first question from a Dwarf
 * handle opened on the same ELF (dwarf_begin_elf: its sections are the ones
 * the symbolizer's session already read), one per ELF, ended when the tables
 * are freed: libdw's rows (Dwarf_Line, about 40 bytes) of a large unit are a
 * block glibc maps of its own, and freed during the run it raised glibc's
 * threshold for the program's blocks too (hct_scratch.h); the copy keeps 12
 * bytes a row and
 * drops a row that answers as the row kept before it (same file and line,
 * neither ending a sequence): dwfl_module_getsrc's binary search then finds
 * that row, with the same answer. */
#include "hct_line_tables.h"

#include "hct_cu_units.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t off;  /* the row's address less the unit's first */
    uint32_t line; /* libdw's int */
    uint32_t file; /* index << 1 | end of sequence; index NO_FILE: libdw names none */
} row;

#define NO_FILE (UINT32_MAX >> 1) /* an index past every unit's files */

typedef struct {
    /* the unit DIE's address in the debug data, read by hct_cu_unit_slot */
    // cppcheck-suppress unusedStructMember
    const void *key;
    int failed;      /* no copy: libdw answers */
    Dwarf_Addr base;
    row *rows;
    size_t nrows;
    char *names;       /* the file names, each ended by a NUL */
    uint32_t *name_at; /* file i's name at names + name_at[i] */
    size_t nfiles;
} unit;

/* A Dwarf handle of our own on one ELF, kept until the tables are freed. */
typedef struct {
    Elf *elf;
    Dwarf *dwarf;
} own_handle;

struct hct_line_tables {
    unit *units; /* sorted by key */
    size_t nunits, cap;
    size_t rows_read, bytes;
    own_handle *own; /* per ELF read (few: the modules whose lines were asked) */
    size_t nown;
};

hct_line_tables *hct_line_tables_new(void)
{
    return calloc(1, sizeof(hct_line_tables));
}

static void unit_clear(unit *u)
{
    free(u->rows);
    free(u->names);
    free(u->name_at);
    u->rows = NULL;
    u->names = NULL;
    u->name_at = NULL;
    u->nrows = u->nfiles = 0;
}

void hct_line_tables_free(hct_line_tables *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nunits; i++)
        unit_clear(&t->units[i]);
    free(t->units);
    for (size_t i = 0; i < t->nown; i++)
        dwarf_end(t->own[i].dwarf); /* libdw's rows and files freed: at the end (the file's comment) */
    free(t->own);
    free(t);
}

typedef struct {
    const char *name;
    uint32_t index;
} file_name;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const file_name *)a)->name, ((const file_name *)b)->name);
}

/* The index of a file named name (dwarf_linesrc's string: not the files
 * table's own, an equal one); NO_FILE if none. A name listed twice (DWARF 5's
 * entries 0 and 1) gives one of its indexes: the same name. */
static uint32_t file_index(const file_name *sorted, size_t n, const char *name)
{
    if (!name)
        return NO_FILE;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(sorted[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && strcmp(sorted[lo].name, name) == 0 ? sorted[lo].index : NO_FILE;
}

/* file_index with a memory of the names already searched, by their address:
 * libdw gives every row of one file the same name pointer, and a unit's rows
 * come in runs of a few files, so nearly every row is answered without a
 * search (libasan's asan_interceptors.cpp, 48,800 rows: read in 31 ms under
 * ASan, 70 ms with 8-9 strcmp a row; the application's thread waits that
 * long at a drain for a sample's first sight: tests/e2e/fold_stages.sh). */
#define SEEN_NAMES 32 /* a power of two */
typedef struct {
    const char *name;
    uint32_t index;
} seen_name;

static uint32_t remembered_file_index(seen_name *seen, const file_name *sorted, size_t n, const char *name)
{
    seen_name *s = &seen[((uintptr_t)name >> 3) & (SEEN_NAMES - 1)];
    if (!name || s->name != name)
        *s = (seen_name){ name, file_index(sorted, n, name) };
    return s->index;
}

/* The unit's file names copied; sorted: the copies by name, for file_index. */
static int copy_files(unit *u, Dwarf_Files *files, size_t nfiles, file_name *sorted)
{
    size_t total = 0;
    for (size_t i = 0; i < nfiles; i++) {
        const char *name = dwarf_filesrc(files, i, NULL, NULL);
        total += strlen(name ? name : "") + 1;
    }
    if (total > UINT32_MAX || !(u->names = malloc(total ? total : 1)) ||
        !(u->name_at = malloc((nfiles ? nfiles : 1) * sizeof(*u->name_at))))
        return -1;
    size_t at = 0;
    for (size_t i = 0; i < nfiles; i++) {
        const char *name = dwarf_filesrc(files, i, NULL, NULL);
        size_t len = strlen(name ? name : "") + 1;
        memcpy(u->names + at, name ? name : "", len);
        u->name_at[i] = (uint32_t)at;
        sorted[i] = (file_name){ u->names + at, (uint32_t)i };
        at += len;
    }
    u->nfiles = nfiles;
    qsort(sorted, nfiles, sizeof(*sorted), by_name);
    return 0;
}

/* The rows of lines (libdw's order: by address) into u, each its file's index. */
static int copy_rows(hct_line_tables *t, unit *u, Dwarf_Lines *lines, size_t nlines, const file_name *sorted)
{
    if (nlines == 0)
        return 0;
    if (!(u->rows = malloc(nlines * sizeof(*u->rows))))
        return -1;
    Dwarf_Addr addr = 0;
    if (dwarf_lineaddr(dwarf_onesrcline(lines, 0), &addr) != 0)
        return -1;
    u->base = addr;
    size_t kept = 0;
    seen_name seen[SEEN_NAMES] = { { NULL, 0 } }; /* a NULL name is never remembered */
    for (size_t i = 0; i < nlines; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        int line = 0;
        bool end = false;
        if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &line) != 0 || dwarf_lineendsequence(l, &end) != 0 ||
            addr < u->base || addr - u->base > UINT32_MAX)
            return -1;
        row r = { (uint32_t)(addr - u->base), (uint32_t)line,
                  remembered_file_index(seen, sorted, u->nfiles, dwarf_linesrc(l, NULL, NULL)) << 1 | (uint32_t)end };
        const row *last = kept ? &u->rows[kept - 1] : NULL;
        if (last && !(last->file & 1) && !end && last->line == r.line && last->file == r.file)
            continue; /* answers as the row before it */
        u->rows[kept++] = r;
    }
    u->nrows = kept;
    t->rows_read += nlines;
    row *fit = realloc(u->rows, kept * sizeof(*u->rows));
    if (fit)
        u->rows = fit;
    return 0;
}

/* Our own handle on elf: opened at its first unit, kept (NULL: none). */
static Dwarf *own_of(hct_line_tables *t, Elf *elf)
{
    if (!elf)
        return NULL;
    for (size_t i = 0; i < t->nown; i++)
        if (t->own[i].elf == elf)
            return t->own[i].dwarf;
    own_handle *grown = realloc(t->own, (t->nown + 1) * sizeof(*grown));
    if (!grown)
        return NULL;
    t->own = grown;
    Dwarf *d = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    if (d)
        t->own[t->nown++] = (own_handle){ elf, d };
    return d;
}

/* The copy of cu's table, read from a handle of our own on the same ELF. */
static int unit_build(hct_line_tables *t, unit *u, Dwarf_Die *cu)
{
    Dwarf *own = cu->cu ? own_of(t, dwarf_getelf(dwarf_cu_getdwarf(cu->cu))) : NULL;
    Dwarf_Die die;
    Dwarf_Lines *lines = NULL;
    Dwarf_Files *files = NULL;
    size_t nlines = 0, nfiles = 0;
    int rc = -1;
    if (own && dwarf_offdie(own, dwarf_dieoffset(cu), &die) && dwarf_getsrclines(&die, &lines, &nlines) == 0 &&
        dwarf_getsrcfiles(&die, &files, &nfiles) == 0 && nfiles <= UINT32_MAX >> 1) {
        file_name *sorted = malloc((nfiles ? nfiles : 1) * sizeof(*sorted));
        rc = sorted && copy_files(u, files, nfiles, sorted) == 0 ? copy_rows(t, u, lines, nlines, sorted) : -1;
        free(sorted);
    }
    if (rc != 0) {
        unit_clear(u);
        u->failed = 1;
        return -1;
    }
    t->bytes += u->nrows * sizeof(*u->rows) + u->nfiles * sizeof(*u->name_at) +
                (u->nfiles ? u->name_at[u->nfiles - 1] + strlen(u->names + u->name_at[u->nfiles - 1]) + 1 : 0);
    return 0;
}

/* The unit of cu, its copy made at its first question; NULL: no memory. */
static unit *unit_of(hct_line_tables *t, Dwarf_Die *cu)
{
    _Static_assert(offsetof(unit, key) == 0, "hct_cu_unit_slot's key first");
    int added;
    unit *u = hct_cu_unit_slot((void **)&t->units, &t->nunits, &t->cap, sizeof(*t->units), cu->addr, &added);
    if (u && added)
        unit_build(t, u, cu);
    return u;
}

int hct_line_find(hct_line_tables *t, Dwarf_Die *cu, Dwarf_Addr pc, const char **file, int *line)
{
    unit *u = t && cu ? unit_of(t, cu) : NULL;
    if (!u || u->failed)
        return -1;
    if (u->nrows == 0 || pc < u->base || pc - u->base > UINT32_MAX)
        return 0;
    uint32_t off = (uint32_t)(pc - u->base);
    size_t l = 0, h = u->nrows - 1; /* the last row at or before pc, as dwfl_module_getsrc */
    while (l < h) {
        size_t mid = h - (h - l) / 2;
        if (off < u->rows[mid].off)
            h = mid - 1;
        else
            l = mid;
    }
    const row *r = &u->rows[l];
    if ((r->file & 1) || r->off > off)
        return 0;
    *line = (int)r->line;
    *file = (r->file >> 1) < u->nfiles ? u->names + u->name_at[r->file >> 1] : NULL;
    return 1;
}

int hct_line_file(hct_line_tables *t, Dwarf_Die *cu, Dwarf_Word idx, const char **file)
{
    unit *u = t && cu ? unit_of(t, cu) : NULL;
    if (!u || u->failed)
        return -1;
    if (idx >= u->nfiles)
        return 0;
    *file = u->names + u->name_at[idx];
    return 1;
}

void hct_line_tables_stats(const hct_line_tables *t, size_t *units, size_t *rows, size_t *rows_read, size_t *bytes)
{
    *units = *rows = *rows_read = *bytes = 0;
    if (!t)
        return;
    *units = t->nunits;
    for (size_t i = 0; i < t->nunits; i++)
        *rows += t->units[i].nrows;
    *rows_read = t->rows_read;
    *bytes = t->bytes;
}

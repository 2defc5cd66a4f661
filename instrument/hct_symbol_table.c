/* hct_symbol_table.c: a module's symbol table sorted by address, built once
 * per module, answering what the symbolizer asked libdw per address:
 * dwfl_module_addrinfo's symbol holding an address (libdw passes over the
 * whole table for each address: 410,000 instructions per lookup in LULESH's
 * node owner, half its symbolization, docs/benchmarks.md "The fixed cost of
 * a rank") and the function symbols starting at an address (the aliases
 * hct_alias_choose picks from).
 *
 * The answer is libdw's own (elfutils 0.188's __libdwfl_addrsym): among the
 * named symbols with a size that hold the address (not sections, files or
 * TLS, not undefined), the global part of the table first, then the local
 * part; within a part, in the table's order, a symbol replaces the one kept
 * if it starts later or binds more strongly (global > weak > local), or
 * starts at the same address, is smaller and binds as strongly. When no sized
 * symbol holds the address, or a symbol without size starts exactly at it,
 * libdw's rules for sizeless labels decide and libdw is asked. */
#include "hct_symbol_table.h"

#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hct_sorted.h"

/* 12 bytes a symbol: its name, type and binding are read again from the
 * table for the few symbols an address finds. */
typedef struct {
    uint32_t offset; /* the value less the module's lowest address */
    uint32_t size;
    uint32_t tag; /* the index in mod's table, its binding's rank and ALIAS_ONLY */
} table_symbol;

#define INDEX_MASK 0x1fffffffu
#define BINDING_SHIFT 29
#define ALIAS_ONLY 0x80000000u /* an undefined function symbol: an alias candidate, never addrinfo's */
#define BLOCK 16               /* entries per block of prefix_end */
#define MAX_HOLDING 64         /* symbols holding one address, more: libdw answers */

struct hct_symbol_table {
    table_symbol *syms; /* by offset, then index */
    uint64_t *prefix_end; /* [b]: the largest offset + size of syms[0 .. BLOCK * (b + 1)) */
    size_t n;
    GElf_Addr lowest, end; /* the module's addresses: [lowest, end) */
    int first_global; /* dwfl_module_getsymtab_first_global */
};

static unsigned tag_index(uint32_t tag)
{
    return tag & INDEX_MASK;
}

static unsigned tag_binding(uint32_t tag)
{
    return (tag >> BINDING_SHIFT) & 3u;
}

/* GELF_ST_BIND as libdw ranks it, higher is better. */
static unsigned binding_rank(const GElf_Sym *sym)
{
    switch (GELF_ST_BIND(sym->st_info)) {
    case STB_GLOBAL:
        return 3;
    case STB_WEAK:
        return 2;
    case STB_LOCAL:
        return 1;
    default:
        return 0;
    }
}

static int is_function(const GElf_Sym *sym)
{
    int type = GELF_ST_TYPE(sym->st_info);
    return type == STT_FUNC || type == STT_GNU_IFUNC;
}

/* What addrinfo considers (__libdwfl_addrsym's search_table). */
static int is_candidate(const char *name, const GElf_Sym *sym)
{
    int type = GELF_ST_TYPE(sym->st_info);
    return name && *name && sym->st_shndx != SHN_UNDEF && type != STT_SECTION && type != STT_FILE && type != STT_TLS;
}

/* Symbol i of mod: 1 if the table keeps it (*sym and *value set), 0 if not
 * (no candidate, or outside the module's addresses [low, end): it holds none
 * of them), -1 if the table cannot answer for mod (a symbol's value is not
 * the plain st_value (+ bias) addrinfo compares, or one from outside holds
 * addresses inside). */
static int kept_symbol(Dwfl_Module *mod, int i, GElf_Addr low, GElf_Addr end, GElf_Sym *sym, GElf_Addr *value,
                       int *alias_only)
{
    GElf_Addr bias = 0;
    GElf_Word shndx = 0;
    const char *name = dwfl_module_getsym_info(mod, i, sym, value, &shndx, NULL, &bias);
    int candidate = is_candidate(name, sym);
    *alias_only = !candidate;
    if (!candidate && !(name && *name && is_function(sym)))
        return 0;
    int unbiased = sym->st_shndx == SHN_ABS || sym->st_shndx == SHN_UNDEF || sym->st_shndx == SHN_COMMON ||
                   shndx == (GElf_Word)-1; /* not in an allocated section */
    if (*value != sym->st_value + (unbiased ? 0 : bias) || sym->st_size > UINT32_MAX)
        return -1;
    if (*value >= low && *value < end)
        return 1;
    return candidate && *value < low && *value + sym->st_size > low ? -1 : 0;
}

static int by_offset(const void *a, const void *b)
{
    const table_symbol *x = a, *y = b;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return (tag_index(x->tag) > tag_index(y->tag)) - (tag_index(x->tag) < tag_index(y->tag));
}

/* t->syms from one pass over mod's nsyms symbols (at most nsyms - 1 kept,
 * the array shrunk after), sorted; t->prefix_end. -1: the table cannot
 * answer for mod, or no memory. */
static int fill(hct_symbol_table *t, Dwfl_Module *mod, int nsyms)
{
    GElf_Sym sym;
    GElf_Addr value = 0;
    int alias_only = 0;
    if (!(t->syms = malloc((size_t)(nsyms - 1) * sizeof(*t->syms))))
        return -1;
    for (int i = 1; i < nsyms; i++) {
        int kept = kept_symbol(mod, i, t->lowest, t->end, &sym, &value, &alias_only);
        if (kept < 0)
            return -1;
        if (kept)
            t->syms[t->n++] = (table_symbol){ (uint32_t)(value - t->lowest), (uint32_t)sym.st_size,
                                              (uint32_t)i | binding_rank(&sym) << BINDING_SHIFT |
                                                  (alias_only ? ALIAS_ONLY : 0) };
    }
    if (t->n == 0)
        return -1;
    table_symbol *shrunk = realloc(t->syms, t->n * sizeof(*t->syms));
    t->syms = shrunk ? shrunk : t->syms;
    if (!(t->prefix_end = malloc((t->n / BLOCK + 1) * sizeof(*t->prefix_end))))
        return -1;
    qsort(t->syms, t->n, sizeof(*t->syms), by_offset);
    uint64_t reach = 0;
    for (size_t i = 0; i < t->n; i++) {
        uint64_t e = (uint64_t)t->syms[i].offset + t->syms[i].size;
        reach = e > reach ? e : reach;
        if ((i + 1) % BLOCK == 0)
            t->prefix_end[i / BLOCK] = reach;
    }
    return 0;
}

hct_symbol_table *hct_symbol_table_build(Dwfl_Module *mod)
{
    int nsyms = dwfl_module_getsymtab(mod);
    int first_global = dwfl_module_getsymtab_first_global(mod);
    Dwarf_Addr low = 0, end = 0;
    dwfl_module_info(mod, NULL, &low, &end, NULL, NULL, NULL, NULL);
    if (nsyms <= 1 || first_global < 0 || (unsigned)nsyms > INDEX_MASK || end <= low || end - low > UINT32_MAX)
        return NULL;
    hct_symbol_table *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->lowest = low;
    t->end = end;
    t->first_global = first_global;
    if (fill(t, mod, nsyms) != 0) {
        hct_symbol_table_free(t);
        return NULL;
    }
    return t;
}

void hct_symbol_table_free(hct_symbol_table *t)
{
    if (!t)
        return;
    free(t->syms);
    free(t->prefix_end);
    free(t);
}

static uint64_t offset_key(const void *entry)
{
    return ((const table_symbol *)entry)->offset;
}

/* The first entry whose offset is above at. */
static size_t upper_bound(const hct_symbol_table *t, uint64_t at)
{
    return hct_sorted_count_at_most(t->syms, t->n, sizeof(*t->syms), offset_key, at);
}

/* The entries with a size holding at, in held[] (at most MAX_HOLDING): their
 * number, or -1 when libdw must answer (a sizeless symbol at at itself, or
 * too many). */
static int holding(const hct_symbol_table *t, uint64_t at, const table_symbol **held)
{
    int n = 0;
    for (size_t i = upper_bound(t, at); i-- > 0;) {
        if ((i + 1) % BLOCK == 0 && t->prefix_end[i / BLOCK] <= at)
            break; /* nothing at or below i reaches at */
        const table_symbol *s = &t->syms[i];
        if (s->tag & ALIAS_ONLY)
            continue;
        if (s->size == 0 && s->offset == at)
            return -1;
        if (at - s->offset < s->size) {
            if (n == MAX_HOLDING)
                return -1;
            held[n++] = s;
        }
    }
    return n;
}

/* try_sym_value's choice among sized symbols holding the address, in the
 * table's order, over the entries whose index lies in [from, to). */
static const table_symbol *choose(const table_symbol **held, int n, unsigned from, unsigned to)
{
    const table_symbol *best = NULL;
    unsigned last = 0;
    for (;;) { /* the next index above last, in [from, to) */
        const table_symbol *next = NULL;
        for (int k = 0; k < n; k++) {
            unsigned i = tag_index(held[k]->tag);
            if (i >= from && i < to && i > last && (next == NULL || i < tag_index(next->tag)))
                next = held[k];
        }
        if (!next)
            return best;
        last = tag_index(next->tag);
        unsigned bb = best ? tag_binding(best->tag) : 0, nb = tag_binding(next->tag);
        /* libdw's second rule (a smaller symbol at the same start, binding no
         * less strongly) is reached only when the first fails: bb >= nb */
        if (best == NULL || best->offset < next->offset || bb < nb ||
            (best->offset == next->offset && best->size > next->size && bb == nb))
            best = next;
    }
}

const char *hct_symbol_table_addrinfo(const hct_symbol_table *t, Dwfl_Module *mod, GElf_Addr address,
                                      GElf_Off *offset)
{
    GElf_Sym sym;
    if (!t || address < t->lowest || address >= t->end)
        return dwfl_module_addrinfo(mod, address, offset, &sym, NULL, NULL, NULL);
    const table_symbol *held[MAX_HOLDING];
    int n = holding(t, address - t->lowest, held);
    const table_symbol *best = NULL;
    if (n > 0) {
        unsigned first = t->first_global == 0 ? 1u : (unsigned)t->first_global;
        best = choose(held, n, first, INDEX_MASK + 1u);
        if (!best && t->first_global > 1)
            best = choose(held, n, 1u, (unsigned)t->first_global);
    }
    if (!best)
        return dwfl_module_addrinfo(mod, address, offset, &sym, NULL, NULL, NULL);
    GElf_Addr value = 0;
    const char *name = dwfl_module_getsym_info(mod, (int)tag_index(best->tag), &sym, &value, NULL, NULL, NULL);
    *offset = address - value;
    return name;
}

size_t hct_symbol_table_aliases(const hct_symbol_table *t, Dwfl_Module *mod, GElf_Addr start, hct_alias *out,
                                size_t max)
{
    GElf_Sym sym;
    GElf_Addr value = 0;
    size_t n = 0;
    if (!t || start < t->lowest || start >= t->end) {
        int nsyms = dwfl_module_getsymtab(mod);
        for (int i = 1; i < nsyms && n < max; i++) {
            const char *name = dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL);
            if (name && *name && is_function(&sym) && value == start)
                out[n++] = (hct_alias){ name, GELF_ST_BIND(sym.st_info) };
        }
        return n;
    }
    uint64_t at = start - t->lowest;
    size_t lo = at > 0 ? upper_bound(t, at - 1) : 0; /* the first at start or after */
    for (; lo < t->n && t->syms[lo].offset == at && n < max; lo++) {
        const char *name = dwfl_module_getsym_info(mod, (int)tag_index(t->syms[lo].tag), &sym, &value, NULL, NULL,
                                                   NULL);
        if (name && *name && is_function(&sym))
            out[n++] = (hct_alias){ name, GELF_ST_BIND(sym.st_info) };
    }
    return n;
}

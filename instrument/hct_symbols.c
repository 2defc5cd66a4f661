/* hct_symbols.c: resolves code addresses of the traced process to functions,
 * source files and lines with elfutils libdw, outside signal handlers (at the
 * end of the run; the inlining depth of sampled addresses when samples are
 * drained). An address in inlined code becomes the chain of functions inlined
 * into each other there (libdw's scopes: DW_TAG_inlined_subroutine with
 * DW_AT_call_file/DW_AT_call_line), as `perf report --inline` shows it. Names
 * follow hct_symbol_names.c: DWARF's linkage name or the symbol table's
 * canonical alias, demangled. File names are absolute: a name the compiler
 * recorded relative to its compilation directory (DWARF 5's line tables as
 * elfutils reads them: "examples/app.c") is joined to the unit's
 * DW_AT_comp_dir, so that the trace names its sources wherever it is read. */
#include "hct_symbols.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <elfutils/version.h>
#include <dwarf.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hca_source_path.h"
#include "hct_debuginfo.h"
#include "hct_image_pages.h"
#include "hct_line_tables.h"
#include "hct_scope_index.h"
#include "hct_symbol_names.h"
#include "hct_symbol_table.h"

#define MAX_ALIASES 32
/* The memory the index of function scopes may take (hct_scope_index.c):
 * LULESH's five units take 0.4 MiB (docs/benchmarks.md). */
#define SCOPE_INDEX_BYTES ((size_t)64 << 20)

/* What the symbolizer keeps per module, each found at its first question:
 * its symbol table by address (hct_symbol_table.h) and whether its own file
 * holds DWARF (a pass over its section headers: 1,900 passes, 10 million
 * instructions, in LULESH's node owner). */
typedef struct {
    Dwfl_Module *mod;
    hct_symbol_table *table; /* NULL: not built (out of memory, values 4 GiB apart): libdw's pass */
    signed char table_built;
    signed char embedded_dwarf; /* -1: not known yet */
} module_entry;

typedef struct {
    module_entry *e;
    size_t n;
} module_list;

struct hct_symbolizer {
    Dwfl *dwfl;
    hct_scope_index *scopes;
    hct_line_tables *lines; /* lines and file names, not libdw's tables (hct_line_tables.h) */
    int separate_debuginfo;
    pthread_mutex_t files_lock;
    hct_image_files files; /* the files read, for hct_symbolizer_release_pages */
    module_list modules;
};

static char *debuginfo_path = NULL;
static const Dwfl_Callbacks proc_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = hct_find_debuginfo, /* no idle debuginfod client (hct_debuginfo.h) */
    .debuginfo_path = &debuginfo_path,
};

static int report_modules(Dwfl *dwfl)
{
    return dwfl_linux_proc_report(dwfl, getpid()) != 0 || dwfl_report_end(dwfl, NULL, NULL) != 0 ? -1 : 0;
}

hct_symbolizer *hct_symbolizer_open(int separate_debuginfo)
{
    hct_symbolizer *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->separate_debuginfo = separate_debuginfo;
    pthread_mutex_init(&s->files_lock, NULL);
    s->dwfl = dwfl_begin(&proc_callbacks);
    s->scopes = hct_scope_index_new(SCOPE_INDEX_BYTES);
    s->lines = hct_line_tables_new();
    if (!s->dwfl || !s->scopes || !s->lines || report_modules(s->dwfl) != 0) {
        hct_symbolizer_close(s);
        return NULL;
    }
    return s;
}

void hct_symbolizer_warm(hct_symbolizer *s)
{
#if _ELFUTILS_PREREQ(0, 188)
    if (s && hct_debuginfod_configured())
        dwfl_get_debuginfod_client(s->dwfl);
#else
    (void)s;
#endif
}

void hct_symbolizer_close(hct_symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->modules.n; i++)
        hct_symbol_table_free(s->modules.e[i].table);
    free(s->modules.e);
    hct_scope_index_free(s->scopes); /* its DIEs point into the Dwfl's data */
    hct_line_tables_free(s->lines);
    if (s->dwfl)
        dwfl_end(s->dwfl);
    hct_image_files_free(&s->files);
    pthread_mutex_destroy(&s->files_lock);
    free(s);
}

/* The module of an address; modules loaded since the last report (dlopen) are
 * reported again once before giving up. */
static Dwfl_Module *module_of(hct_symbolizer *s, uintptr_t address)
{
    if (!s)
        return NULL;
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, (Dwarf_Addr)address);
    if (!mod) {
        dwfl_report_begin_add(s->dwfl);
        if (report_modules(s->dwfl) == 0)
            mod = dwfl_addrmodule(s->dwfl, (Dwarf_Addr)address);
        pthread_mutex_lock(&s->files_lock);
        hct_image_files_forget(&s->files);
        pthread_mutex_unlock(&s->files_lock);
    }
    return mod;
}

/* Keeps the names of the files the module was read from (its own, its
 * separate debug file: known once libdw found them). */
static void note_files(hct_symbolizer *s, Dwfl_Module *mod)
{
    const char *mainfile = NULL, *debugfile = NULL;
    dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
    pthread_mutex_lock(&s->files_lock);
    hct_image_files_add(&s->files, mainfile);
    hct_image_files_add(&s->files, debugfile);
    pthread_mutex_unlock(&s->files_lock);
}

long hct_symbolizer_release_pages(hct_symbolizer *s)
{
    if (!s)
        return 0;
    pthread_mutex_lock(&s->files_lock);
    long kb = hct_image_pages_release(&s->files, "/proc/self/maps");
    pthread_mutex_unlock(&s->files_lock);
    return kb;
}

/* mod's entry in l, added at its first question; NULL without memory. */
static module_entry *module_entry_of(module_list *l, Dwfl_Module *mod)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].mod == mod)
            return &l->e[i];
    module_entry *grown = realloc(l->e, (l->n + 1) * sizeof(*grown));
    if (!grown)
        return NULL;
    l->e = grown;
    l->e[l->n] = (module_entry){ mod, NULL, 0, -1 };
    return &l->e[l->n++];
}

/* Does the module's own file hold DWARF (.debug_info)? Without
 * separate_debuginfo, only then is DWARF read for it. */
static int has_embedded_dwarf(hct_symbolizer *s, Dwfl_Module *mod)
{
    module_entry *m = module_entry_of(&s->modules, mod);
    if (m && m->embedded_dwarf >= 0)
        return m->embedded_dwarf;
    GElf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    size_t shstrndx = 0;
    int found = 0;
    if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
        for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !found; scn = elf_nextscn(elf, scn)) {
            GElf_Shdr shdr;
            const char *name = gelf_getshdr(scn, &shdr) ? elf_strptr(elf, shstrndx, shdr.sh_name) : NULL;
            found = name && strcmp(name, ".debug_info") == 0;
        }
    if (m)
        m->embedded_dwarf = (signed char)found;
    return found;
}

/* The compilation unit of an address, if DWARF is to be read for its module. */
static Dwarf_Die *cu_of(hct_symbolizer *s, Dwfl_Module *mod, Dwarf_Addr address, Dwarf_Addr *bias)
{
    if (!s->separate_debuginfo && !has_embedded_dwarf(s, mod))
        return NULL;
    return dwfl_module_addrdie(mod, address, bias);
}

static void copy_str(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

/* A source file name of the compilation unit cu as an absolute path: joined to
 * the unit's DW_AT_comp_dir when relative (as recorded when it has none, or
 * when the path does not fit). */
static void source_file(Dwarf_Die *cu, const char *file, char *dst, size_t n)
{
    Dwarf_Attribute attr;
    const char *dir = file && file[0] != '/' && cu && dwarf_attr(cu, DW_AT_comp_dir, &attr) ? dwarf_formstring(&attr)
                                                                                             : NULL;
    if (!dir || dir[0] != '/' || hca_source_path_join(dir, file, dst, n) != 0)
        copy_str(dst, n, file);
}

/* The file and line of an address (dwfl_module_getsrc's row), the file
 * absolute (source_file); -1 if none. From the unit's compact copy
 * (hct_line_tables.h); libdw's own table only if that copy cannot be made. */
static int address_source(hct_symbolizer *s, Dwfl_Module *mod, Dwarf_Addr address, char *file, size_t n)
{
    int lineno = 0;
    const char *name = NULL;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, address, &bias);
    int found = cu ? hct_line_find(s->lines, cu, address - bias, &name, &lineno) : 0;
    if (found < 0) {
        Dwfl_Line *line = dwfl_module_getsrc(mod, address);
        name = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
        cu = line ? dwfl_linecu(line) : NULL;
    }
    file[0] = 0;
    if (name)
        source_file(cu, name, file, n);
    return name ? lineno : -1;
}

/* File idx of the unit cu's line table (dwarf_filesrc's name), NULL if none. */
static const char *unit_file(const hct_symbolizer *s, Dwarf_Die *cu, Dwarf_Word idx)
{
    const char *name = NULL;
    int found = cu ? hct_line_file(s->lines, cu, idx, &name) : 0;
    if (found < 0) {
        Dwarf_Files *files = NULL;
        size_t nfiles = 0;
        if (dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && idx < nfiles)
            name = dwarf_filesrc(files, idx, NULL, NULL);
    }
    return name;
}

/* A DIE's declaration file (dwarf_decl_file's: DW_AT_decl_file, of its abstract
 * origin if need be, in the unit holding the attribute). */
static const char *decl_file(const hct_symbolizer *s, Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Word idx = 0;
    Dwarf_Die unit;
    if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &attr), &idx) != 0 || !attr.cu ||
        !dwarf_cu_die(attr.cu, &unit, NULL, NULL, NULL, NULL, NULL, NULL))
        return NULL;
    return unit_file(s, &unit, idx);
}

/* Name, signature, declaration line and file of a function's DIE (an inlined
 * instance names its abstract origin); "??" if it has no name. */
static void die_function(const hct_symbolizer *s, Dwarf_Die *die, hct_symbol *out)
{
    Dwarf_Attribute attr;
    const char *linkage = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
        linkage = dwarf_formstring(&attr);
    const char *name = dwarf_attr_integrate(die, DW_AT_name, &attr) ? dwarf_formstring(&attr) : NULL;
    if (!hct_demangle(linkage, out->function, sizeof(out->function), out->signature, sizeof(out->signature)) &&
        !hct_fortran_name(linkage, out->function, sizeof(out->function), out->signature, sizeof(out->signature)))
        hct_function_name(name ? name : "??", out->function, sizeof(out->function), out->signature,
                          sizeof(out->signature));
    int line = 0;
    if (dwarf_decl_line(die, &line) == 0)
        out->function_line = (uint32_t)line;
    Dwarf_Die cu;
    source_file(dwarf_diecu(die, &cu, NULL, NULL), decl_file(s, die), out->file, sizeof(out->file));
}

/* Where an inlined instance was called: DW_AT_call_file/DW_AT_call_line. */
static void call_site(const hct_symbolizer *s, Dwarf_Die *cu, Dwarf_Die *inlined, hct_symbol *caller)
{
    Dwarf_Attribute attr;
    Dwarf_Word file = 0, line = 0;
    if (dwarf_attr(inlined, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &line) == 0)
        caller->line = (uint32_t)line;
    const char *name = dwarf_attr(inlined, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &file) == 0
                           ? unit_file(s, cu, file)
                           : NULL;
    if (name)
        source_file(cu, name, caller->file, sizeof(caller->file));
}

/* mod's symbol table by address, built at its first question. */
static const hct_symbol_table *symbols_of(hct_symbolizer *s, Dwfl_Module *mod)
{
    module_entry *m = module_entry_of(&s->modules, mod);
    if (!m)
        return NULL;
    if (!m->table_built) {
        m->table = hct_symbol_table_build(mod);
        m->table_built = 1;
    }
    return m->table;
}

/* The canonical name among the symbols at the start of the function holding
 * address (hct_alias_choose), demangled. Returns 0 if no symbol holds it. */
static int symbol_function(hct_symbolizer *s, Dwfl_Module *mod, Dwarf_Addr address, hct_symbol *out)
{
    GElf_Off offset = 0;
    const hct_symbol_table *table = symbols_of(s, mod);
    const char *first = hct_symbol_table_addrinfo(table, mod, address, &offset);
    if (!first)
        return 0;
    hct_alias aliases[MAX_ALIASES];
    size_t n = hct_symbol_table_aliases(table, mod, address - offset, aliases, MAX_ALIASES);
    int best = hct_alias_choose(aliases, n);
    char plain[256];
    copy_str(plain, sizeof(plain), best >= 0 ? aliases[best].name : first);
    plain[strcspn(plain, "@")] = '\0'; /* the version of a versioned symbol */
    hct_function_name(plain, out->function, sizeof(out->function), out->signature, sizeof(out->signature));
    return 1;
}

static Elf_Scn *section_named(Elf *elf, size_t shstrndx, const char *want, GElf_Shdr *shdr)
{
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        const char *name = gelf_getshdr(scn, shdr) ? elf_strptr(elf, shstrndx, shdr->sh_name) : NULL;
        if (name && strcmp(name, want) == 0)
            return scn;
    }
    return NULL;
}

/* An address in a PLT stub (no symbol covers those) as "function@plt", as perf
 * names it: the stubs of .plt (after its header) and .plt.sec are in the order
 * of the .rela.plt relocations, whose symbols name them. Returns 0 otherwise. */
static int plt_function(Dwfl_Module *mod, Dwarf_Addr address, hct_symbol *out)
{
    GElf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    size_t shstrndx = 0;
    GElf_Shdr rela_shdr, plt_shdr, sym_shdr;
    Elf_Scn *rela = elf && elf_getshdrstrndx(elf, &shstrndx) == 0 ? section_named(elf, shstrndx, ".rela.plt", &rela_shdr)
                                                                  : NULL;
    if (!rela || rela_shdr.sh_entsize == 0)
        return 0;
    size_t nrela = rela_shdr.sh_size / rela_shdr.sh_entsize;
    GElf_Addr at = address - bias;
    static const char *const stubs[] = { ".plt.sec", ".plt" };
    for (size_t k = 0; k < sizeof(stubs) / sizeof(stubs[0]); k++) {
        if (!section_named(elf, shstrndx, stubs[k], &plt_shdr))
            continue;
        GElf_Xword entsize = plt_shdr.sh_entsize ? plt_shdr.sh_entsize : 16;
        if (at < plt_shdr.sh_addr || at >= plt_shdr.sh_addr + plt_shdr.sh_size ||
            plt_shdr.sh_size < nrela * entsize)
            continue;
        GElf_Addr first = plt_shdr.sh_addr + plt_shdr.sh_size - nrela * entsize; /* after the header */
        if (at < first)
            return 0;
        GElf_Rela r;
        GElf_Sym sym;
        Elf_Scn *symtab = elf_getscn(elf, rela_shdr.sh_link);
        if (!gelf_getrela(elf_getdata(rela, NULL), (int)((at - first) / entsize), &r) || !symtab ||
            !gelf_getshdr(symtab, &sym_shdr) || !gelf_getsym(elf_getdata(symtab, NULL), (int)GELF_R_SYM(r.r_info), &sym))
            return 0;
        const char *name = elf_strptr(elf, sym_shdr.sh_link, sym.st_name);
        if (!name || !*name)
            return 0;
        snprintf(out->signature, sizeof(out->signature), "%s@plt", name);
        hct_name_short(out->signature, out->function, sizeof(out->function));
        return 1;
    }
    return 0;
}

/* The address's own source line into out; without one, the function's
 * declaration file if known, else the module's name. */
static void address_line(hct_symbolizer *s, Dwfl_Module *mod, Dwarf_Addr address, const char *modname,
                         hct_symbol *out)
{
    char file[sizeof(out->file)];
    int lineno = s->separate_debuginfo || has_embedded_dwarf(s, mod) ? address_source(s, mod, address, file, sizeof(file))
                                                                   : -1;
    out->line = lineno >= 0 ? (uint32_t)lineno : 0;
    if (lineno >= 0)
        copy_str(out->file, sizeof(out->file), file);
    else if (!out->file[0])
        copy_str(out->file, sizeof(out->file), modname);
}

/* The functions an address lies in, innermost first, the physical function
 * last (hct_scope_functions: the chain of concrete instances), and its unit. */
static int address_scopes(hct_symbolizer *s, Dwfl_Module *mod, uintptr_t address, Dwarf_Die **cu,
                          Dwarf_Die *fns)
{
    Dwarf_Addr bias = 0;
    *cu = cu_of(s, mod, (Dwarf_Addr)address, &bias);
    return *cu ? hct_scope_functions(s->scopes, *cu, (Dwarf_Addr)address - bias, fns, HCT_INLINE_MAX) : 0;
}

static uint64_t mix_key(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* The function a DIE is an instance of: its abstract origin's offset (an
 * inlined or out-of-line instance of an inline function), else its own. */
static uint64_t function_identity(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Die origin;
    for (int hops = 0; hops < 4 && dwarf_attr(die, DW_AT_abstract_origin, &attr) &&
                       dwarf_formref_die(&attr, &origin);
         hops++)
        die = &origin;
    return dwarf_dieoffset(die);
}

/* A file name's hash: files are compared by name, as the definitions do (a
 * line table may list one file twice: DWARF 5's entries 0 and 1). */
static uint64_t name_hash(const char *name)
{
    uint64_t h = 5381;
    for (const char *c = name ? name : ""; *c; c++)
        h = h * 33 + (unsigned char)*c;
    return h;
}

/* The call site of an inlined instance: DW_AT_call_file's name and DW_AT_call_line. */
static uint64_t call_identity(const hct_symbolizer *s, Dwarf_Die *cu, Dwarf_Die *inlined)
{
    hct_symbol site;
    memset(&site, 0, sizeof(site));
    call_site(s, cu, inlined, &site);
    return mix_key(name_hash(site.file), site.line);
}

int hct_symbol_keys(hct_symbolizer *s, uintptr_t address, uint64_t *keys, uint64_t *module_key)
{
    Dwfl_Module *mod = module_of(s, address);
    if (!mod) {
        keys[0] = mix_key(1, address) | 1;
        *module_key = 0;
        return 1;
    }
    Dwarf_Addr base = 0;
    dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
    *module_key = mix_key(2, base);
    Dwarf_Die *cu = NULL, fns[HCT_INLINE_MAX];
    int n = address_scopes(s, mod, address, &cu, fns);
    /* the same in every process that loaded the module: no load address */
    uint64_t module = mix_key(2, 0);
    /* outer functions: the function and where it calls the next one */
    for (int k = n - 1; k > 0; k--)
        keys[n - 1 - k] = mix_key(mix_key(mix_key(module, 3), function_identity(&fns[k])),
                                  call_identity(s, cu, &fns[k - 1])) | 1;
    uint64_t leaf;
    if (n > 0) { /* the innermost function and the address's line */
        char file[sizeof(((hct_symbol *)0)->file)];
        int lineno = address_source(s, mod, (Dwarf_Addr)address, file, sizeof(file));
        leaf = mix_key(mix_key(mix_key(module, 3), function_identity(&fns[0])),
                       mix_key(name_hash(file), (uint64_t)(lineno > 0 ? lineno : 0)));
    } else { /* no DWARF scope: the symbol and the line hct_symbolize_inline shows, or the address */
        GElf_Off offset = 0;
        hct_symbol line;
        memset(&line, 0, sizeof(line));
        address_line(s, mod, (Dwarf_Addr)address, NULL, &line);
        leaf = hct_symbol_table_addrinfo(symbols_of(s, mod), mod, (Dwarf_Addr)address, &offset)
                   ? mix_key(mix_key(mix_key(module, 5), address - offset - base),
                             mix_key(name_hash(line.file), line.line))
                   : mix_key(mix_key(module, 6), address - base);
        n = 1;
    }
    keys[n - 1] = leaf | 1;
    note_files(s, mod);
    return n;
}

void hct_symbolize(hct_symbolizer *s, uintptr_t address, hct_symbol *out)
{
    hct_symbol *chain = malloc(HCT_INLINE_MAX * sizeof(*chain));
    if (!chain) {
        hct_symbolize_inline(s, address, out, 1);
        return;
    }
    int n = hct_symbolize_inline(s, address, chain, HCT_INLINE_MAX);
    *out = chain[n - 1];
    free(chain);
}

int hct_symbolize_inline(hct_symbolizer *s, uintptr_t address, hct_symbol *out, int max)
{
    if (max <= 0)
        return 0;
    memset(out, 0, sizeof(*out));
    Dwfl_Module *mod = module_of(s, address);
    if (!mod) {
        snprintf(out->function, sizeof(out->function), "0x%lx", (unsigned long)address);
        copy_str(out->signature, sizeof(out->signature), out->function);
        return 1;
    }
    const char *modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    Dwarf_Die *cu = NULL, fns[HCT_INLINE_MAX];
    int nfn = address_scopes(s, mod, address, &cu, fns);
    int n = 0;
    /* outermost first; past max, the innermost functions are left out */
    for (int k = nfn - 1; k >= 0 && n < max; k--, n++) {
        hct_symbol *o = &out[n];
        memset(o, 0, sizeof(*o));
        die_function(s, &fns[k], o);
        if (k > 0) /* it calls the next one, inlined, here */
            call_site(s, cu, &fns[k - 1], o);
    }
    if (n == 0) { /* no DWARF: the symbol table */
        memset(out, 0, sizeof(*out));
        if (!symbol_function(s, mod, (Dwarf_Addr)address, out) && !plt_function(mod, (Dwarf_Addr)address, out)) {
            /* the library region: one name for all its unnamed code, the module as canonical name */
            hct_library_region_name(modname, out->function, sizeof(out->function));
            copy_str(out->signature, sizeof(out->signature), modname ? modname : out->function);
        }
        n = 1;
    }
    if (n == nfn || nfn == 0) /* the innermost function: the address's own line */
        address_line(s, mod, (Dwarf_Addr)address, modname, &out[n - 1]);
    note_files(s, mod);
    return n;
}

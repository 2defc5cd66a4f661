/* hct_symbols.c: resolves code addresses of the traced process to function,
 * source file and line with elfutils libdw, once, at the end of the run (never in
 * a signal handler or a wrapper). C++ names are demangled with libstdc++'s
 * __cxa_demangle when the program has libstdc++ loaded (every C++ program);
 * otherwise they stay mangled. */
#include "hct_symbols.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dlfcn.h>
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


struct hct_symbolizer {
    Dwfl *dwfl;
};

static char *debuginfo_path = NULL;
static const Dwfl_Callbacks proc_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

/* Debug information only in the module itself: no separate file is searched. */
static int no_separate_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                                 const char *file, const char *debuglink, GElf_Word crc, char **debuginfo_file)
{
    (void)mod;
    (void)userdata;
    (void)modname;
    (void)base;
    (void)file;
    (void)debuglink;
    (void)crc;
    (void)debuginfo_file;
    return -1;
}

static const Dwfl_Callbacks embedded_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = no_separate_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

hct_symbolizer *hct_symbolizer_open(int separate_debuginfo)
{
    hct_symbolizer *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->dwfl = dwfl_begin(separate_debuginfo ? &proc_callbacks : &embedded_callbacks);
    if (!s->dwfl || dwfl_linux_proc_report(s->dwfl, getpid()) != 0 ||
        dwfl_report_end(s->dwfl, NULL, NULL) != 0) {
        hct_symbolizer_close(s);
        return NULL;
    }
    return s;
}

void hct_symbolizer_close(hct_symbolizer *s)
{
    if (!s)
        return;
    if (s->dwfl)
        dwfl_end(s->dwfl);
    free(s);
}

static void copy_str(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* "ns::Class::method(int)" for a mangled C++ name, when libstdc++ is loaded;
 * copied into out. Returns 0 if it was not demangled. */
static int demangle(const char *mangled, char *out, size_t n)
{
    static demangle_fn fn;
    static int looked;
    if (!mangled || mangled[0] != '_' || mangled[1] != 'Z')
        return 0;
    if (!looked) {
        looked = 1;
        fn = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    }
    int status = -1;
    char *d = fn ? fn(mangled, NULL, NULL, &status) : NULL;
    if (!d || status != 0) {
        free(d);
        return 0;
    }
    copy_str(out, n, d);
    free(d);
    return 1;
}

/* The innermost function (or inlined function) containing addr, with its
 * declaration line and its linkage name (C++). Returns its name or NULL. */
static const char *scope_function(Dwfl_Module *mod, Dwarf_Addr addr, uint32_t *decl_line,
                                  const char **decl_file, const char **linkage)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
    if (!cu)
        return NULL;
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(cu, addr - bias, &scopes);
    const char *name = NULL;
    for (int i = 0; i < n; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        Dwarf_Attribute attr;
        Dwarf_Die origin = scopes[i];
        if (tag == DW_TAG_inlined_subroutine &&
            dwarf_attr(&scopes[i], DW_AT_abstract_origin, &attr) && dwarf_formref_die(&attr, &origin) == NULL)
            origin = scopes[i];
        name = dwarf_diename(&origin);
        if (!name) {
            Dwarf_Attribute a2;
            if (dwarf_attr_integrate(&origin, DW_AT_name, &a2))
                name = dwarf_formstring(&a2);
        }
        Dwarf_Attribute a3;
        if (dwarf_attr_integrate(&origin, DW_AT_linkage_name, &a3) ||
            dwarf_attr_integrate(&origin, DW_AT_MIPS_linkage_name, &a3))
            *linkage = dwarf_formstring(&a3);
        int line = 0;
        if (dwarf_decl_line(&origin, &line) == 0)
            *decl_line = (uint32_t)line;
        *decl_file = dwarf_decl_file(&origin);
        break;
    }
    free(scopes);
    return name;
}

void hct_symbolize(hct_symbolizer *s, uintptr_t address, hct_symbol *out)
{
    memset(out, 0, sizeof(*out));
    Dwfl_Module *mod = s ? dwfl_addrmodule(s->dwfl, (Dwarf_Addr)address) : NULL;
    if (!mod) {
        snprintf(out->function, sizeof(out->function), "0x%lx", (unsigned long)address);
        return;
    }
    Dwarf_Addr base = 0;
    const char *modname = dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
    const char *symname = dwfl_module_addrname(mod, (GElf_Addr)address);
    const char *decl_file = NULL, *linkage = NULL;
    const char *fn = scope_function(mod, (Dwarf_Addr)address, &out->function_line, &decl_file, &linkage);
    if (fn) {
        if (!demangle(linkage, out->function, sizeof(out->function)))
            copy_str(out->function, sizeof(out->function), fn);
    } else if (symname) {
        if (!demangle(symname, out->function, sizeof(out->function)))
            copy_str(out->function, sizeof(out->function), symname);
    } else {
        snprintf(out->function, sizeof(out->function), "%s+0x%lx", modname ? modname : "??",
                 (unsigned long)(address - base));
    }
    Dwfl_Line *line = dwfl_module_getsrc(mod, (Dwarf_Addr)address);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (file) {
        copy_str(out->file, sizeof(out->file), file);
        out->line = (uint32_t)lineno;
    } else {
        copy_str(out->file, sizeof(out->file), decl_file ? decl_file : modname);
    }
}

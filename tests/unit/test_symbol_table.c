/* test_symbol_table.c: unit tests of a module's symbol table by address
 * (instrument/hct_symbol_table.c) against libdw's own answers, on every
 * module of this test process as the tracer reports them (libc with its
 * separate debug file's table where installed, libdw, libelf, libstdc++ and
 * Open MPI's libraries loaded with dlopen when present): for the addresses
 * at every 4th symbol's start, before it and at its end and every Nth address
 * of each module, dwfl_module_addrinfo and hct_symbol_table_addrinfo give the
 * same name and offset; for those that are functions, the aliases at their
 * start are those of a pass over the whole table, in its order.
 * HCT_SYMBOL_TEST_STEP=N: every Nth address (default 997). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "test_dwfl_self.h"

#include "hct_symbol_table.h"

typedef struct {
    long addresses, named, mismatches, starts, aliases, tables;
    long two_parts; /* tables with a local and a global part */
} tally;

static Dwfl *open_self(void)
{
    static char *debuginfo_path;
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .debuginfo_path = &debuginfo_path,
    };
    return test_dwfl_self(&callbacks);
}

static void compare_address(const hct_symbol_table *t, Dwfl_Module *mod, GElf_Addr address, tally *y)
{
    GElf_Off want_off = 0, got_off = 0;
    GElf_Sym sym;
    const char *want = dwfl_module_addrinfo(mod, address, &want_off, &sym, NULL, NULL, NULL);
    const char *got = hct_symbol_table_addrinfo(t, mod, address, &got_off);
    y->addresses++;
    y->named += want != NULL;
    if ((want == NULL) != (got == NULL) || (want && (strcmp(want, got) != 0 || want_off != got_off))) {
        if (y->mismatches++ < 10)
            print_error("%s 0x%lx: libdw %s+%lu, table %s+%lu\n", dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL,
                                                                                 NULL, NULL),
                        (unsigned long)address, want ? want : "-", (unsigned long)want_off, got ? got : "-",
                        (unsigned long)got_off);
    }
}

static void compare_aliases(const hct_symbol_table *t, Dwfl_Module *mod, GElf_Addr start, tally *y)
{
    hct_alias want[32], got[32];
    size_t nw = hct_symbol_table_aliases(NULL, mod, start, want, 32);
    size_t ng = hct_symbol_table_aliases(t, mod, start, got, 32);
    y->starts++;
    y->aliases += (long)nw;
    int same = nw == ng;
    for (size_t k = 0; same && k < nw; k++)
        same = strcmp(want[k].name, got[k].name) == 0 && want[k].binding == got[k].binding;
    if (!same && y->mismatches++ < 10)
        print_error("aliases at 0x%lx: %zu by the pass, %zu by the table\n", (unsigned long)start, nw, ng);
}

static int compare_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr low, void *arg)
{
    (void)userdata;
    (void)name;
    tally *y = arg;
    hct_symbol_table *t = hct_symbol_table_build(mod);
    int nsyms = dwfl_module_getsymtab(mod);
    if (!t || nsyms <= 1) {
        hct_symbol_table_free(t);
        return DWARF_CB_OK;
    }
    y->tables++;
    y->two_parts += dwfl_module_getsymtab_first_global(mod) > 1;
    const char *step_env = getenv("HCT_SYMBOL_TEST_STEP");
    GElf_Addr step = step_env ? strtoul(step_env, NULL, 10) : 997, end = 0;
    dwfl_module_info(mod, NULL, NULL, &end, NULL, NULL, NULL, NULL);
    for (GElf_Addr a = low; step > 0 && a < end; a += step)
        compare_address(t, mod, a, y);
    for (int i = 1; i < nsyms; i++) {
        GElf_Sym sym;
        GElf_Addr value = 0;
        const char *sname = dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL);
        if (!sname || value < low || value >= end || i % 4 != 0)
            continue;
        GElf_Addr around[] = { value - 1, value, value + sym.st_size };
        for (size_t k = 0; k < sizeof(around) / sizeof(around[0]); k++)
            compare_address(t, mod, around[k], y);
        int type = GELF_ST_TYPE(sym.st_info);
        if (type == STT_FUNC || type == STT_GNU_IFUNC)
            compare_aliases(t, mod, value, y);
    }
    hct_symbol_table_free(t);
    return DWARF_CB_OK;
}

static void same_answers_as_libdw(void **state)
{
    (void)state;
    /* more modules with large tables, when installed */
    void *mpi = dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL);
    void *cxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL);
    Dwfl *dwfl = open_self();
    tally y;
    memset(&y, 0, sizeof(y));
    assert_int_equal(dwfl_getmodules(dwfl, compare_module, &y, 0), 0);
    print_message("# %ld tables (%ld in two parts), %ld addresses (%ld named), %ld function starts with %ld aliases, "
                  "%ld mismatches\n",
                  y.tables, y.two_parts, y.addresses, y.named, y.starts, y.aliases, y.mismatches);
    assert_true(y.tables >= 3);        /* libc, libdw, libelf at least */
    assert_true(y.named > 5000);       /* the comparison saw real symbols (9,436 on aarch64 without libmpi) */
    assert_true(y.aliases > y.starts); /* and functions with several names */
    assert_int_equal(y.mismatches, 0);
    dwfl_end(dwfl);
    if (cxx)
        dlclose(cxx);
    if (mpi)
        dlclose(mpi);
}

/* No table for an address outside every symbol: libdw's answer (NULL). */
static void null_table_asks_libdw(void **state)
{
    (void)state;
    Dwfl *dwfl = open_self();
    Dwarf_Addr address = (Dwarf_Addr)(uintptr_t)&dwfl_begin;
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, address);
    assert_non_null(mod);
    GElf_Off offset = 1;
    const char *name = hct_symbol_table_addrinfo(NULL, mod, address, &offset);
    assert_non_null(name);
    assert_string_equal(name, "dwfl_begin");
    assert_int_equal(offset, 0);
    dwfl_end(dwfl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_answers_as_libdw),
        cmocka_unit_test(null_table_asks_libdw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

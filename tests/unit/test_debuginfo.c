/* test_debuginfo.c: unit tests of the tracer's find_debuginfo callback
 * (instrument/hct_debuginfo.c): for every module of this process it finds the
 * same separate debug file as libdw's standard search (libc's on a machine with
 * libc6-dbg), and without DEBUGINFOD_URLS a search that finds nothing (libz,
 * liblzma: no debug files) leaves libdebuginfod unloaded, which libdw's own
 * callback does not (0.188: its debuginfod client, 6-7 MiB of resident memory
 * with libcurl, GnuTLS and libcrypto). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <dlfcn.h>
#include <elfutils/libdwfl.h>

#include "test_dwfl_self.h"

#include "hct_debuginfo.h"

#define MAX_MODULES 256

typedef struct {
    int n, with_debug;
    char name[MAX_MODULES][512], debug[MAX_MODULES][512];
} found;

static int collect(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start, void *arg)
{
    (void)userdata;
    (void)start;
    found *f = arg;
    if (f->n == MAX_MODULES)
        return DWARF_CB_ABORT;
    Dwarf_Addr bias = 0;
    dwfl_module_getdwarf(mod, &bias); /* the debug file search */
    const char *debugfile = NULL;
    dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
    snprintf(f->name[f->n], sizeof(f->name[0]), "%s", name);
    snprintf(f->debug[f->n], sizeof(f->debug[0]), "%s", debugfile ? debugfile : "");
    f->with_debug += debugfile && strncmp(debugfile, "/usr/lib/debug/", 15) == 0;
    f->n++;
    return DWARF_CB_OK;
}

static char *debuginfo_path = NULL;

static void search_all(int (*find)(Dwfl_Module *, void **, const char *, Dwarf_Addr, const char *, const char *,
                                   GElf_Word, char **),
                       found *f)
{
    const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = find,
        .debuginfo_path = &debuginfo_path,
    };
    Dwfl *dwfl = test_dwfl_self(&callbacks);
    memset(f, 0, sizeof(*f));
    dwfl_getmodules(dwfl, collect, f, 0);
    dwfl_end(dwfl);
}

static int libdebuginfod_loaded(void)
{
    void *h = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (h)
        dlclose(h);
    return h != NULL;
}

/* Runs first: nothing in this process has asked libdw's debuginfod client yet. */
static void same_files_no_client(void **state)
{
    (void)state;
    static found ours, standard;
    unsetenv("DEBUGINFOD_URLS");
    assert_false(libdebuginfod_loaded());
    search_all(hct_find_debuginfo, &ours);
    assert_true(ours.n >= 4); /* the test, libc, libdw, libz at least */
    assert_false(libdebuginfod_loaded());

    search_all(dwfl_standard_find_debuginfo, &standard);
    assert_int_equal(ours.n, standard.n);
    for (int i = 0; i < ours.n; i++) {
        assert_string_equal(ours.name[i], standard.name[i]);
        assert_string_equal(ours.debug[i], standard.debug[i]);
    }
    if (access("/usr/lib/debug/.build-id", F_OK) == 0 && ours.with_debug == 0)
        print_message("no module of this process has a file under /usr/lib/debug: only the empty search checked\n");
    /* libdw's own search loads its client for the modules without debug files
     * (libdw 0.188 and later): what hct_find_debuginfo avoids */
    print_message("libdw's standard search %s libdebuginfod\n", libdebuginfod_loaded() ? "loaded" : "did not load");
}

static void configured(void **state)
{
    (void)state;
    unsetenv("DEBUGINFOD_URLS");
    assert_false(hct_debuginfod_configured());
    setenv("DEBUGINFOD_URLS", "", 1);
    assert_false(hct_debuginfod_configured());
    setenv("DEBUGINFOD_URLS", " \t", 1);
    assert_false(hct_debuginfod_configured());
    setenv("DEBUGINFOD_URLS", "https://debuginfod.debian.net", 1);
    assert_true(hct_debuginfod_configured());
    unsetenv("DEBUGINFOD_URLS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_files_no_client),
        cmocka_unit_test(configured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* hct_debuginfo.c: separate debug files without an idle debuginfod client (see
 * hct_debuginfo.h). The files looked for are those of libdw's standard search
 * with its default path (":.debug:/usr/lib/debug"): /usr/lib/debug/.build-id/
 * NN/REST.debug, and the debuglink name (or FILE.debug) beside the module, in
 * its .debug directory and under /usr/lib/debug, for the module's name and its
 * canonical one; an absolute debuglink name (a dwz alternate file) as it is. */
#include "hct_debuginfo.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEBUG_ROOT "/usr/lib/debug"

int hct_debuginfod_configured(void)
{
    const char *urls = getenv("DEBUGINFOD_URLS");
    return urls && urls[strspn(urls, " \t")] != '\0';
}

static int exists(const char *path)
{
    return access(path, R_OK) == 0;
}

static int build_id_file_exists(Dwfl_Module *mod)
{
    const unsigned char *bits = NULL;
    GElf_Addr vaddr = 0;
    int n = dwfl_module_build_id(mod, &bits, &vaddr);
    if (n < 2 || n > 64)
        return 0;
    char path[sizeof(DEBUG_ROOT "/.build-id/") + 2 * 64 + sizeof("/.debug")];
    int len = snprintf(path, sizeof(path), DEBUG_ROOT "/.build-id/%02x/", bits[0]);
    for (int i = 1; i < n; i++)
        len += snprintf(path + len, sizeof(path) - (size_t)len, "%02x", bits[i]);
    snprintf(path + len, sizeof(path) - (size_t)len, ".debug");
    return exists(path);
}

/* The debuglink candidates of the module file `file` (an absolute path). */
static int debuglink_file_exists(const char *file, const char *link)
{
    const char *slash = strrchr(file, '/');
    if (!slash)
        return 0;
    char name[PATH_MAX], path[PATH_MAX];
    if (link)
        snprintf(name, sizeof(name), "%s", link);
    else
        snprintf(name, sizeof(name), "%s.debug", slash + 1);
    int dir = (int)(slash - file);
    static const char *const form[] = { "%.*s/%s", "%.*s/.debug/%s", DEBUG_ROOT "%.*s/%s" };
    for (size_t i = 0; i < sizeof(form) / sizeof(form[0]); i++) {
        int len = snprintf(path, sizeof(path), form[i], dir, file, name);
        if (len > 0 && (size_t)len < sizeof(path) && exists(path))
            return 1;
    }
    return 0;
}

static int local_candidate_exists(Dwfl_Module *mod, const char *file_name, const char *debuglink_file)
{
    if (debuglink_file && debuglink_file[0] == '/' && exists(debuglink_file))
        return 1;
    if (build_id_file_exists(mod))
        return 1;
    if (!file_name || file_name[0] != '/')
        return 0;
    if (debuglink_file_exists(file_name, debuglink_file))
        return 1;
    char *canon = realpath(file_name, NULL);
    int found = canon && strcmp(canon, file_name) != 0 && debuglink_file_exists(canon, debuglink_file);
    free(canon);
    return found;
}

int hct_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                       const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                       char **debuginfo_file_name)
{
    if (!hct_debuginfod_configured() && !local_candidate_exists(mod, file_name, debuglink_file))
        return -1;
    return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc,
                                        debuginfo_file_name);
}

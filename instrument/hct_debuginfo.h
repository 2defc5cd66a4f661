/* hct_debuginfo.h: libdwfl's find_debuginfo callback for the tracer's symbolizers:
 * libdw's standard search of separate debug files (build ID, debuglink), asked
 * only when one of the files it looks for exists on this machine, or when
 * DEBUGINFOD_URLS names servers. libdw 0.188 otherwise ends every search that
 * finds nothing (most system libraries) by creating its debuginfod client, which
 * dlopens libdebuginfod with libcurl, GnuTLS, libcrypto, Kerberos and a dozen
 * more: 6-7 MiB of the traced process's resident memory for a client that has
 * no server to ask (docs/benchmarks.md, "Peak resident memory"). */
#ifndef HCT_DEBUGINFO_H
#define HCT_DEBUGINFO_H

#include <elfutils/libdwfl.h>

#include "hct.h"

int hct_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                       const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                       char **debuginfo_file_name) HCT_HIDDEN;
/* Whether debuginfod servers are configured (DEBUGINFOD_URLS set, not empty):
 * only then is libdw's debuginfod client worth loading. */
int hct_debuginfod_configured(void) HCT_HIDDEN;

#endif

/* hct_symbols.h: code addresses of the traced process -> function, file and
 * line, with libdw, at the end of the run only (hct_symbols.c). */
#ifndef HCT_SYMBOLS_H
#define HCT_SYMBOLS_H

#include <stdint.h>

#include "hct.h"

typedef struct {
    char function[256];
    char file[512];
    uint32_t line, function_line;
} hct_symbol;
/* Resolves code addresses of this process to function, file and line. */
typedef struct hct_symbolizer hct_symbolizer;
/* separate_debuginfo: also look for debug information in separate files
 * (/usr/lib/debug, distribution -dbg packages); 0: only what the modules
 * themselves hold (cheaper: no decompression of large separate files). */
hct_symbolizer *hct_symbolizer_open(int separate_debuginfo) HCT_HIDDEN;
void hct_symbolize(hct_symbolizer *s, uintptr_t address, hct_symbol *out) HCT_HIDDEN;
void hct_symbolizer_close(hct_symbolizer *s) HCT_HIDDEN;

#endif

/* hct_symbols.h: code addresses of the traced process -> function, file and
 * line, with libdw, outside signal handlers only (hct_symbols.c); an address
 * inside inlined code is the chain of functions inlined into each other there. */
#ifndef HCT_SYMBOLS_H
#define HCT_SYMBOLS_H

#include <stdint.h>

#include "hct.h"

/* Functions one code address is expanded into at most: its physical function
 * and the innermost HCT_INLINE_MAX - 1 functions inlined at that address. */
#define HCT_INLINE_MAX 32

typedef struct {
    char function[256];  /* the name shown: C++ demangled without return type and parameters */
    char signature[512]; /* the full name: the demangled signature (the same as function for C) */
    char file[512];
    uint32_t line, function_line;
} hct_symbol;
/* Resolves code addresses of this process to function, file and line. */
typedef struct hct_symbolizer hct_symbolizer;
/* separate_debuginfo: also read debug information (DWARF: inlining, lines) from
 * separate files (/usr/lib/debug, distribution -dbg packages); 0: DWARF only
 * from what the modules themselves hold (cheaper: no decompression of large
 * separate files). Symbol tables are read from separate files in both modes:
 * a library's local functions are named only there. */
hct_symbolizer *hct_symbolizer_open(int separate_debuginfo) HCT_HIDDEN;
/* The innermost function at `address` and the source line of the address. */
void hct_symbolize(hct_symbolizer *s, uintptr_t address, hct_symbol *out) HCT_HIDDEN;
/* How many functions `address` lies in (1 .. HCT_INLINE_MAX: 1 plus the
 * levels of inlining there, what hct_symbolize_inline returns), and for each,
 * outermost first, a non-zero key naming what its node shows: its function
 * and source line (an outer function's: where it calls the next one; the
 * innermost's: the address's line; without a DWARF scope, as for gfortran's
 * module procedures: the symbol and the address's line, if any). Addresses with
 * equal keys symbolize to equal nodes, so nodes are shared as the definitions
 * share them. Reads no names: cheap enough when samples are drained. The keys
 * do not depend on where the module was loaded (the same in every process
 * running its file): the caller mixes in the module, *module_key, (or
 * another name of its file) before using them; *module_key is 0 for an
 * address in no module, whose one key is the address's own, whole. */
int hct_symbol_keys(hct_symbolizer *s, uintptr_t address, uint64_t *keys, uint64_t *module_key) HCT_HIDDEN;
/* The functions `address` lies in, outermost (the physical function) first,
 * into out[0 .. max-1]; each one's line is where it calls the next (the call
 * site of the inlined function), the innermost one's the address's own line.
 * Returns how many were written (at least 1 when max > 0). */
int hct_symbolize_inline(hct_symbolizer *s, uintptr_t address, hct_symbol *out, int max) HCT_HIDDEN;
/* Loads now what libdw would load at the first module without a separate
 * debug file on this machine (most system libraries): its debuginfod client,
 * libdebuginfod with libcurl and a dozen libraries, dlopened once per process
 * (libdw 0.188; nothing with older ones). 5-9 ms on the VM we test on, more
 * under load: on the tracer's worker at load, not while a drain or a region
 * enter waits for the worker (docs/benchmarks.md, "The first lookup"). */
void hct_symbolizer_warm(hct_symbolizer *s) HCT_HIDDEN;
/* Drops the resident pages of the files the symbolizer read that libelf
 * mapped (hct_image_pages.h): clean copies of the files, read again by a later
 * lookup (also one running meanwhile on another thread). It reads
 * /proc/self/maps and the pagemap of those mappings: call it after a burst
 * of lookups, not per address. Returns the kB of the mappings dropped. */
long hct_symbolizer_release_pages(hct_symbolizer *s) HCT_HIDDEN;
void hct_symbolizer_close(hct_symbolizer *s) HCT_HIDDEN;

#endif

/* hct_symbol_names.h: the naming rules of symbolized functions
 * (hct_symbol_names.c): C++ names demangled, shown without return type and
 * parameter list, the full signature kept apart; one canonical name among the
 * aliases that share an address. Pure functions, no libdw. */
#ifndef HCT_SYMBOL_NAMES_H
#define HCT_SYMBOL_NAMES_H

#include <stddef.h>

#include "hct.h"

/* A mangled C++ name demangled with libstdc++'s __cxa_demangle (found in the
 * process, or libstdc++.so.6 loaded at the first mangled name): the full signature (as
 * __cxa_demangle writes it, "void Release<double>(double**)") into signature,
 * the short name (hct_name_short: "Release<double>") into name. Returns 0 and
 * leaves both untouched if `mangled` is not a C++ name or cannot be demangled. */
int hct_demangle(const char *mangled, char *name, size_t name_size, char *signature,
                 size_t signature_size) HCT_HIDDEN;

/* The short name of a demangled signature: without the return type, the
 * parameter list, the qualifiers after it (const, &, &&) and GCC's clone
 * suffixes ("[clone .cold]", ".part.0", ".isra.0", ".constprop.0", ".cold");
 * "void ns::A<int>::f(int) const" -> "ns::A<int>::f", "operator()" kept. A
 * plain C name loses its clone suffix only. Writes at most out_size bytes. */
void hct_name_short(const char *signature, char *out, size_t out_size) HCT_HIDDEN;

/* A Fortran module procedure's symbol in the style perf, HPCToolkit and
 * Score-P show: gfortran's "__advection_module_MOD_advection" and LLVM flang's
 * "_QMadvection_modulePadvection" -> "advection_module::advection" into name,
 * the symbol itself into signature (the canonical name); a suffix after the
 * procedure is kept, clone suffixes off ("__m_MOD_s._omp_fn.0" ->
 * "m::s._omp_fn.0", the outlined body of an OpenMP construct). Returns 0 and
 * leaves both untouched for any other name. */
int hct_fortran_name(const char *symbol, char *name, size_t name_size, char *signature,
                     size_t signature_size) HCT_HIDDEN;

/* The name and signature of a function from its symbol or DWARF name: C++
 * demangled (hct_demangle), a Fortran module procedure (hct_fortran_name), else
 * the name without clone suffix (hct_name_short) with the symbol as signature. */
void hct_function_name(const char *symbol, char *name, size_t name_size, char *signature,
                       size_t signature_size) HCT_HIDDEN;

/* The name of code no symbol covers in a module (a stripped library without
 * debug file): the library region, as profilers show it, "<file> (<role>)"
 * with the file name cut after its first version number and the role of a
 * known runtime: "/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0" ->
 * "libgomp.so.1 (OpenMP runtime)", libomp/libiomp5 the same, libmpi,
 * libopen-pal, libopen-rte and Open MPI's mca_* components "(MPI runtime)",
 * any other "(no symbols)"; NULL or "" -> "?? (no symbols)". Writes at most
 * out_size bytes. */
void hct_library_region_name(const char *module, char *out, size_t out_size) HCT_HIDDEN;

/* A symbol sharing its address with others, as a symbol table lists it. */
typedef struct {
    const char *name; /* may end in "@VERSION" or "@@VERSION": ignored */
    int binding;      /* STB_GLOBAL, STB_WEAK or STB_LOCAL */
} hct_alias;

/* Which of n aliases of one address names it (docs/trace-format.md, "Function
 * names"): (1) not a _FloatN alias of another candidate (cbrtf64, cbrtf32x
 * beside cbrt), (2) a public name over a reserved one (leading '_'), (3) GLOBAL
 * over WEAK over LOCAL binding, (4) the shortest, (5) the first in byte order.
 * Returns its index; -1 if n is 0. */
int hct_alias_choose(const hct_alias *aliases, size_t n) HCT_HIDDEN;

#endif

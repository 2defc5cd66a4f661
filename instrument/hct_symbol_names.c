/* hct_symbol_names.c: the naming rules of symbolized functions. Demangling is
 * libstdc++'s __cxa_demangle, looked up in the process (dlsym) rather than
 * linked: C++ programs have it loaded, C or Fortran programs do not get
 * libstdc++ loaded by the tracer (only when a mangled name is met, at the end
 * of the run, and the program did not load it). The short name is cut out of the demangled
 * signature by a scan that knows brackets and operator names (the ABI's
 * demangler has no "no parameters" mode; libiberty's would, at the price of a
 * static library in the preload library: docs/architecture.md). */
#include "hct_symbol_names.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

int hct_demangle(const char *mangled, char *name, size_t name_size, char *signature, size_t signature_size)
{
    static demangle_fn fn;
    static int looked;
    if (!mangled || mangled[0] != '_' || mangled[1] != 'Z')
        return 0;
    if (!looked) {
        fn = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
        if (!fn) { /* C++ code that does not use libstdc++ itself: loaded now (never unloaded) */
            void *libstdcxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
            fn = libstdcxx ? (demangle_fn)dlsym(libstdcxx, "__cxa_demangle") : NULL;
        }
        looked = 1;
    }
    int status = -1;
    char *d = fn ? fn(mangled, NULL, NULL, &status) : NULL;
    if (!d || status != 0) {
        free(d);
        return 0;
    }
    snprintf(signature, signature_size, "%s", d);
    hct_name_short(d, name, name_size);
    free(d);
    return 1;
}

/* ---- the short name ------------------------------------------------------------ */

static int is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* At s[i] an "operator" keyword (not part of a longer identifier)? Then the
 * length of the keyword and the operator symbol after it ("operator<<", "operator()"),
 * so that its brackets are not counted as nesting. 0 otherwise. */
static size_t operator_token(const char *s, size_t i, size_t len)
{
    static const char kw[] = "operator";
    static const char *const symbols[] = { "()", "[]", "->*", "->", "<<=", ">>=", "<=>", "<<", ">>", "<=", ">=", "<", ">" };
    size_t k = sizeof(kw) - 1;
    if (i + k > len || memcmp(s + i, kw, k) != 0 || (i > 0 && is_ident(s[i - 1])) ||
        (i + k < len && is_ident(s[i + k])))
        return 0;
    for (size_t j = 0; j < sizeof(symbols) / sizeof(symbols[0]); j++) {
        size_t n = strlen(symbols[j]);
        if (i + k + n <= len && memcmp(s + i + k, symbols[j], n) == 0)
            return k + n;
    }
    return k;
}

static int opens(char c)
{
    return c == '(' || c == '<' || c == '[' || c == '{';
}

static int closes(char c)
{
    return c == ')' || c == '>' || c == ']' || c == '}';
}

/* Where the parameter list starts: the last top-level "(...)" not followed by
 * "::" (that one is a scope such as "(anonymous namespace)"); len if none. */
static size_t parameters_start(const char *s, size_t len)
{
    size_t start = len, open = len;
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        size_t op = depth == 0 ? operator_token(s, i, len) : 0;
        if (op) {
            i += op - 1;
            continue;
        }
        if (opens(s[i])) {
            if (depth == 0 && s[i] == '(')
                open = i;
            depth++;
        } else if (closes(s[i]) && depth > 0) {
            depth--;
            if (depth == 0 && s[i] == ')' && open < len && strncmp(s + i + 1, "::", 2) != 0)
                start = open;
        }
    }
    return start;
}

/* Where the name starts in s[0, len): after the return type, i.e. after the
 * last top-level space before an operator keyword (whose name may hold spaces:
 * "operator new", "operator int"). */
static size_t name_start(const char *s, size_t len)
{
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        if (depth == 0 && operator_token(s, i, len))
            break;
        if (opens(s[i]))
            depth++;
        else if (closes(s[i]) && depth > 0)
            depth--;
        else if (depth == 0 && s[i] == ' ')
            start = i + 1;
    }
    return start;
}

/* Where a GCC clone suffix of a plain name starts ("foo.part.0"); len if none. */
static size_t clone_suffix_start(const char *s, size_t len)
{
    static const char *const suffixes[] = { ".part.", ".isra.", ".constprop.", ".cold", ".lto_priv.", ".clone." };
    for (size_t i = 1; i < len; i++)
        for (size_t j = 0; s[i] == '.' && j < sizeof(suffixes) / sizeof(suffixes[0]); j++)
            if (strncmp(s + i, suffixes[j], strlen(suffixes[j])) == 0)
                return i;
    return len;
}

void hct_name_short(const char *signature, char *out, size_t out_size)
{
    if (out_size == 0)
        return;
    size_t len = strlen(signature);
    size_t end = parameters_start(signature, len);
    if (end == len) /* not a C++ signature: a plain name */
        end = clone_suffix_start(signature, len);
    while (end > 0 && signature[end - 1] == ' ')
        end--;
    size_t begin = name_start(signature, end);
    if (begin >= end) /* nothing left: keep the whole */
        begin = 0, end = len;
    size_t n = end - begin < out_size - 1 ? end - begin : out_size - 1;
    memcpy(out, signature + begin, n);
    out[n] = '\0';
}

/* ---- Fortran ------------------------------------------------------------------ */

/* A run of lowercase Fortran identifier characters (compilers lowercase the
 * names they mangle) at s: its length, 0 if none. */
static size_t fortran_ident(const char *s)
{
    size_t n = 0;
    while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_' || s[n] == '$')
        n++;
    return n;
}

/* gfortran: "__" module "_MOD_" procedure [suffix]. The first "_MOD_" is the
 * separator: the module's name, lowercased, cannot hold it. */
static int gfortran_module_name(const char *s, size_t len, char *out, size_t out_size)
{
    if (len < 8 || strncmp(s, "__", 2) != 0)
        return 0;
    const char *sep = strstr(s + 2, "_MOD_");
    if (!sep || sep == s + 2 || (size_t)(sep - s) + 5 >= len)
        return 0;
    size_t module = (size_t)(sep - s) - 2;
    if (fortran_ident(s + 2) < module)
        return 0;
    const char *procedure = sep + 5;
    snprintf(out, out_size, "%.*s::%.*s", (int)module, s + 2, (int)(len - (size_t)(procedure - s)), procedure);
    return 1;
}

/* LLVM flang: "_Q" then scopes, each an uppercase letter and a lowercase name:
 * M module, S submodule, F host procedure, ending with P procedure
 * ("_QMmodFhostPinner" -> "mod::host::inner"); [suffix] kept. Other kinds
 * (variables, types, common blocks) are not functions: 0. */
static int flang_module_name(const char *s, size_t len, char *out, size_t out_size)
{
    if (len < 4 || strncmp(s, "_Q", 2) != 0)
        return 0;
    size_t i = 2, o = 0;
    int scopes = 0;
    out[0] = '\0';
    while (i < len && (s[i] == 'M' || s[i] == 'S' || s[i] == 'F')) {
        size_t n = fortran_ident(s + i + 1);
        if (n == 0)
            return 0;
        if (o + n + 3 > out_size)
            return 0;
        memcpy(out + o, s + i + 1, n);
        memcpy(out + o + n, "::", 3);
        o += n + 2;
        i += n + 1;
        scopes++;
    }
    if (scopes == 0 || i >= len || s[i] != 'P' || fortran_ident(s + i + 1) == 0)
        return 0;
    snprintf(out + o, out_size - o, "%.*s", (int)(len - i - 1), s + i + 1);
    return 1;
}

int hct_fortran_name(const char *symbol, char *name, size_t name_size, char *signature, size_t signature_size)
{
    if (!symbol || name_size == 0)
        return 0;
    size_t len = clone_suffix_start(symbol, strlen(symbol));
    char scoped[512];
    if (!gfortran_module_name(symbol, len, scoped, sizeof(scoped)) &&
        !flang_module_name(symbol, len, scoped, sizeof(scoped)))
        return 0;
    snprintf(name, name_size, "%s", scoped);
    snprintf(signature, signature_size, "%s", symbol);
    return 1;
}

void hct_function_name(const char *symbol, char *name, size_t name_size, char *signature, size_t signature_size)
{
    if (hct_demangle(symbol, name, name_size, signature, signature_size) ||
        hct_fortran_name(symbol, name, name_size, signature, signature_size))
        return;
    snprintf(signature, signature_size, "%s", symbol);
    hct_name_short(symbol, name, name_size);
}

/* ---- aliases ------------------------------------------------------------------- */

/* Length of a symbol name without its version ("cbrt@@GLIBC_2.2.5" -> 4). */
static size_t unversioned_length(const char *name)
{
    const char *at = strchr(name, '@');
    return at ? (size_t)(at - name) : strlen(name);
}

/* Is a (length la) another name b plus a _FloatN suffix (f32, f64, f128, f32x, f64x)? */
static int float_n_alias_of(const char *a, size_t la, const char *b, size_t lb)
{
    static const char *const suffixes[] = { "f16", "f32", "f64", "f128", "f32x", "f64x", "f128x" };
    if (la <= lb || memcmp(a, b, lb) != 0)
        return 0;
    for (size_t j = 0; j < sizeof(suffixes) / sizeof(suffixes[0]); j++)
        if (la - lb == strlen(suffixes[j]) && memcmp(a + lb, suffixes[j], la - lb) == 0)
            return 1;
    return 0;
}

static int binding_rank(int binding)
{
    return binding == STB_GLOBAL ? 0 : binding == STB_WEAK ? 1 : 2;
}

/* The sort key of alias i against the others: lower is better, in the order of
 * the rules of hct_alias_choose. */
static void alias_key(const hct_alias *aliases, size_t n, size_t i, int key[4])
{
    const char *a = aliases[i].name;
    size_t la = unversioned_length(a);
    int float_n = 0;
    for (size_t j = 0; j < n && !float_n; j++)
        float_n = j != i && float_n_alias_of(a, la, aliases[j].name, unversioned_length(aliases[j].name));
    key[0] = float_n;
    key[1] = a[0] == '_';
    key[2] = binding_rank(aliases[i].binding);
    key[3] = (int)la;
}

int hct_alias_choose(const hct_alias *aliases, size_t n)
{
    int best = -1, best_key[4] = { 0 };
    for (size_t i = 0; i < n; i++) {
        int key[4];
        alias_key(aliases, n, i, key);
        int better = best < 0;
        for (int k = 0; k < 4 && !better; k++) {
            if (key[k] != best_key[k]) {
                better = key[k] < best_key[k];
                break;
            }
            if (k == 3) { /* all equal: byte order of the names */
                size_t la = unversioned_length(aliases[i].name), lb = unversioned_length(aliases[best].name);
                better = strncmp(aliases[i].name, aliases[best].name, la < lb ? la : lb) < 0;
            }
        }
        if (better) {
            best = (int)i;
            memcpy(best_key, key, sizeof(key));
        }
    }
    return best;
}

/* the runtimes whose unnamed code is named by its role */
static const struct {
    const char *prefix, *role;
} runtimes[] = {
    { "libgomp.", "OpenMP runtime" }, { "libomp.", "OpenMP runtime" },   { "libiomp5.", "OpenMP runtime" },
    { "libmpi.", "MPI runtime" },     { "libmpi_", "MPI runtime" },      { "libopen-pal.", "MPI runtime" },
    { "libopen-rte.", "MPI runtime" }, { "mca_", "MPI runtime" },
};

void hct_library_region_name(const char *module, char *out, size_t out_size)
{
    if (!out_size)
        return;
    const char *base = module ? strrchr(module, '/') : NULL;
    base = base ? base + 1 : module;
    if (!base || !*base)
        base = "??";
    /* up to the first version number after ".so": "libgomp.so.1.0.0" -> "libgomp.so.1" */
    size_t len = strlen(base);
    const char *so = strstr(base, ".so.");
    if (so) {
        const char *v = so + 4;
        while (*v >= '0' && *v <= '9')
            v++;
        len = (size_t)(v - base);
    }
    const char *role = "no symbols";
    for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
        if (strncmp(base, runtimes[i].prefix, strlen(runtimes[i].prefix)) == 0)
            role = runtimes[i].role;
    snprintf(out, out_size, "%.*s (%s)", (int)len, base, role);
}

/* test_symbol_names.c: unit tests of the naming rules of symbolized functions
 * (instrument/hct_symbol_names.c): short names without return type, parameter
 * list and clone suffixes, C++ operators and lambdas intact, demangling with
 * libstdc++, Fortran module procedures (gfortran, LLVM flang) as module::procedure,
 * and the canonical name among aliases of one address (glibc's
 * libm and libc symbol tables as examples). */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hct_symbol_names.h"

/* libstdc++'s demangler, referenced so that the test links and loads
 * libstdc++ as every C++ program does (hct_demangle finds it with dlsym) */
char *__cxa_demangle(const char *mangled, char *out, size_t *length, int *status);

static void expect_short(const char *signature, const char *want)
{
    char out[256];
    hct_name_short(signature, out, sizeof(out));
    if (strcmp(out, want) != 0)
        print_error("'%s' -> '%s', want '%s'\n", signature, out, want);
    assert_string_equal(out, want);
}

static void short_names(void **state)
{
    (void)state;
    expect_short("void Release<double>(double**)", "Release<double>");
    expect_short("CalcKinematicsForElems(Domain&, double, int)", "CalcKinematicsForElems");
    expect_short("solver::Grid::sweep(long)", "solver::Grid::sweep");
    expect_short("foo::bar<int>::baz() const", "foo::bar<int>::baz");
    expect_short("unsigned long Count<long>(long)", "Count<long>");
    expect_short("std::vector<int, std::allocator<int> >::push_back(int const&) &&",
                 "std::vector<int, std::allocator<int> >::push_back");
    expect_short("(anonymous namespace)::helper(int)", "(anonymous namespace)::helper");
    expect_short("foo(int) [clone .cold]", "foo");
    expect_short("phase_update.part.0", "phase_update");
    expect_short("run_kernel.constprop.0.isra.0", "run_kernel");
    expect_short("main", "main");
    expect_short("__libc_start_call_main", "__libc_start_call_main");
}

static void operators_and_lambdas(void **state)
{
    (void)state;
    expect_short("main::{lambda()#1}::operator()() const", "main::{lambda()#1}::operator()");
    expect_short("bool operator< <int>(A<int> const&, A<int> const&)", "operator< <int>");
    expect_short("std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char const*)",
                 "std::operator<< <std::char_traits<char> >");
    expect_short("std::vector<int, std::allocator<int> >::operator[](unsigned long)",
                 "std::vector<int, std::allocator<int> >::operator[]");
    expect_short("A::operator->() const", "A::operator->");
    expect_short("operator new(unsigned long)", "operator new");
    expect_short("A::operator int() const", "A::operator int");
    expect_short("void std::__sort<int*, __gnu_cxx::__ops::_Iter_less_iter>(int*, int*, "
                 "__gnu_cxx::__ops::_Iter_less_iter)",
                 "std::__sort<int*, __gnu_cxx::__ops::_Iter_less_iter>");
}

static void demangling(void **state)
{
    (void)state;
    assert_non_null((void *)__cxa_demangle);
    char name[128] = "untouched", signature[256] = "untouched";
    assert_int_equal(hct_demangle("_Z7ReleaseIdEvPPT_", name, sizeof(name), signature, sizeof(signature)), 1);
    assert_string_equal(name, "Release<double>");
    assert_string_equal(signature, "void Release<double>(double**)");
    assert_int_equal(hct_demangle("_ZN6solver4Grid5sweepEl", name, sizeof(name), signature, sizeof(signature)), 1);
    assert_string_equal(name, "solver::Grid::sweep");
    assert_string_equal(signature, "solver::Grid::sweep(long)");
    assert_int_equal(hct_demangle("cbrt", name, sizeof(name), signature, sizeof(signature)), 0);
    assert_int_equal(hct_demangle("_Znot-a-name", name, sizeof(name), signature, sizeof(signature)), 0);
    assert_string_equal(name, "solver::Grid::sweep");
}

static void expect_function(const char *symbol, const char *want_name, const char *want_signature)
{
    char name[128] = "untouched", signature[256] = "untouched";
    hct_function_name(symbol, name, sizeof(name), signature, sizeof(signature));
    if (strcmp(name, want_name) != 0 || strcmp(signature, want_signature) != 0)
        print_error("'%s' -> '%s' ('%s'), want '%s' ('%s')\n", symbol, name, signature, want_name, want_signature);
    assert_string_equal(name, want_name);
    assert_string_equal(signature, want_signature);
}

static void fortran_names(void **state)
{
    (void)state;
    /* gfortran: CloverLeaf's advection, module names with underscores */
    expect_function("__advection_module_MOD_advection", "advection_module::advection",
                    "__advection_module_MOD_advection");
    expect_function("__update_halo_kernel_module_MOD_update_halo_kernel",
                    "update_halo_kernel_module::update_halo_kernel",
                    "__update_halo_kernel_module_MOD_update_halo_kernel");
    /* OpenMP outlined bodies keep their suffix, clone suffixes go */
    expect_function("__mod_MOD_sub._omp_fn.0", "mod::sub._omp_fn.0", "__mod_MOD_sub._omp_fn.0");
    expect_function("__mod_MOD_sub.part.0", "mod::sub", "__mod_MOD_sub.part.0");
    expect_function("__mod_MOD_sub._omp_fn.1.constprop.0", "mod::sub._omp_fn.1", "__mod_MOD_sub._omp_fn.1.constprop.0");
    /* LLVM flang */
    expect_function("_QMadvection_modulePadvection", "advection_module::advection", "_QMadvection_modulePadvection");
    expect_function("_QMmodFhostPinner", "mod::host::inner", "_QMmodFhostPinner");
    /* not module procedures: the plain rules */
    expect_function("__MOD_x", "__MOD_x", "__MOD_x");
    expect_function("__a_MOD_", "__a_MOD_", "__a_MOD_");
    expect_function("__Big_MOD_x", "__Big_MOD_x", "__Big_MOD_x");
    expect_function("_QPexternal_sub", "_QPexternal_sub", "_QPexternal_sub");
    expect_function("_QMmodEvariable", "_QMmodEvariable", "_QMmodEvariable");
    expect_function("compute_step_", "compute_step_", "compute_step_");
    expect_function("main._omp_fn.0", "main._omp_fn.0", "main._omp_fn.0");
    expect_function("phase_update.part.0", "phase_update", "phase_update.part.0");
    expect_function("_Z7ReleaseIdEvPPT_", "Release<double>", "void Release<double>(double**)");
    char name[16] = "untouched", signature[16] = "untouched"; /* cut to the buffers, never past them */
    assert_int_equal(hct_fortran_name("__a_very_long_module_MOD_proc", name, sizeof(name), signature,
                                      sizeof(signature)), 1);
    assert_string_equal(name, "a_very_long_mod");
    assert_int_equal(hct_fortran_name("cbrt", name, sizeof(name), signature, sizeof(signature)), 0);
    assert_int_equal(hct_fortran_name(NULL, name, sizeof(name), signature, sizeof(signature)), 0);
}

static const char *chosen(const hct_alias *a, size_t n)
{
    int i = hct_alias_choose(a, n);
    return i < 0 ? NULL : a[i].name;
}

static void aliases(void **state)
{
    (void)state;
    /* libm's cbrt: three weak names in .dynsym, __cbrt local in .symtab */
    const hct_alias cbrt[] = { { "cbrtf64", STB_WEAK }, { "cbrtf32x", STB_WEAK }, { "__cbrt", STB_LOCAL },
                               { "cbrt", STB_WEAK } };
    assert_string_equal(chosen(cbrt, 4), "cbrt");
    assert_string_equal(chosen(cbrt, 2), "cbrtf64"); /* no base name among them: the shortest */
    /* libm's scalbn = ldexp: both standard, the shortest */
    const hct_alias scalbn[] = { { "scalbnf64", STB_WEAK }, { "scalbnf32x", STB_WEAK }, { "ldexpf64", STB_WEAK },
                                 { "__wrap_scalbn", STB_LOCAL }, { "scalbn", STB_WEAK }, { "__ldexp", STB_LOCAL },
                                 { "ldexp", STB_WEAK }, { "ldexpf32x", STB_WEAK } };
    assert_string_equal(chosen(scalbn, 8), "ldexp");
    assert_string_equal(chosen(scalbn, 2), "scalbnf64");
    /* libc's __libc_start_main: local implementation names, global versioned ones */
    const hct_alias start[] = { { "__libc_start_main_impl", STB_LOCAL }, { "__libc_start_main_alias_1", STB_LOCAL },
                                { "__libc_start_main@@GLIBC_2.34", STB_GLOBAL },
                                { "__libc_start_main@GLIBC_2.2.5", STB_GLOBAL } };
    const char *s = chosen(start, 4);
    assert_non_null(s);
    assert_int_equal(strncmp(s, "__libc_start_main@", 18), 0);
    /* public over reserved, global over weak */
    const hct_alias pub[] = { { "__memcpy", STB_GLOBAL }, { "memcpy", STB_LOCAL } };
    assert_string_equal(chosen(pub, 2), "memcpy");
    const hct_alias bind[] = { { "aaa", STB_WEAK }, { "bbb", STB_GLOBAL } };
    assert_string_equal(chosen(bind, 2), "bbb");
    const hct_alias order[] = { { "bbb", STB_WEAK }, { "aaa", STB_WEAK } };
    assert_string_equal(chosen(order, 2), "aaa");
    assert_null(chosen(order, 0));
}

/* code no symbol covers: the library region, never "lib+0xOFFSET" */
static void library_regions(void **state)
{
    (void)state;
    char out[64];
    hct_library_region_name("/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0", out, sizeof(out));
    assert_string_equal(out, "libgomp.so.1 (OpenMP runtime)");
    hct_library_region_name("/opt/llvm/lib/libomp.so", out, sizeof(out));
    assert_string_equal(out, "libomp.so (OpenMP runtime)");
    hct_library_region_name("/usr/lib/x86_64-linux-gnu/libopen-pal.so.40.30.2", out, sizeof(out));
    assert_string_equal(out, "libopen-pal.so.40 (MPI runtime)");
    hct_library_region_name("/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so", out, sizeof(out));
    assert_string_equal(out, "mca_btl_vader.so (MPI runtime)");
    hct_library_region_name("/usr/lib/libfoo.so.2", out, sizeof(out));
    assert_string_equal(out, "libfoo.so.2 (no symbols)");
    hct_library_region_name(NULL, out, sizeof(out));
    assert_string_equal(out, "?? (no symbols)");
    char tiny[8];
    hct_library_region_name("/usr/lib/libgomp.so.1", tiny, sizeof(tiny));
    assert_string_equal(tiny, "libgomp");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(short_names),
        cmocka_unit_test(operators_and_lambdas),
        cmocka_unit_test(demangling),
        cmocka_unit_test(fortran_names),
        cmocka_unit_test(aliases),
        cmocka_unit_test(library_regions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_dwfl_self.h: the test process itself reported to libdw as the tracer
 * reports a traced process (dwfl_linux_proc_report), shared by the unit tests
 * that look at its modules (test_debuginfo.c, test_symbol_table.c). Include
 * after cmocka.h. */
#ifndef TEST_DWFL_SELF_H
#define TEST_DWFL_SELF_H

#include <elfutils/libdwfl.h>
#include <unistd.h>

/* This process's modules with callbacks (which must outlive the Dwfl). */
static inline Dwfl *test_dwfl_self(const Dwfl_Callbacks *callbacks)
{
    Dwfl *dwfl = dwfl_begin(callbacks);
    assert_non_null(dwfl);
    assert_int_equal(dwfl_linux_proc_report(dwfl, getpid()), 0);
    assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
    return dwfl;
}

#endif

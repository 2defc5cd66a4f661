/* hct_diag.h: the diagnostics every file of the tracer uses: one-line messages
 * on stderr, configuration problems (printed by one rank of a job only), and
 * OTF2 errors (the first one kept in hct.write_error for the final message).
 * Calls nothing of the tracer but its state (hct.c). */
#ifndef HCT_DIAG_H
#define HCT_DIAG_H

#include <otf2/otf2.h>

#include "hct.h"

/* One line "hcatrace: ..." on stderr, in one write. */
void hct_message(const char *fmt, ...) HCT_HIDDEN __attribute__((format(printf, 1, 2)));
/* A configuration problem: one line, printed by one rank of a job only. */
void hct_config_problem(const char *fmt, ...) HCT_HIDDEN __attribute__((format(printf, 1, 2)));
/* The same for a line already formatted (the reporter of hct_config_read). */
void hct_config_problem_line(const char *line) HCT_HIDDEN;
/* Whether this process is the rank that prints configuration problems (at
 * load; every process is until told otherwise). */
void hct_config_problems_here(int prints) HCT_HIDDEN;

/* Checks an OTF2 result; remembers the first failure and counts the loss. */
void hct_otf2_check(hct_thread *t, OTF2_ErrorCode rc) HCT_HIDDEN;
/* From now on OTF2 reports its own errors to hct.write_error (the first one)
 * instead of printing them. */
void hct_otf2_errors_captured(void) HCT_HIDDEN;

#endif

/* hct_diag.c: messages, configuration problems and OTF2 errors (hct_diag.h).
 * The bottom of the tracer's layers with hct.c: every file may call it, it
 * calls no other file of the tracer. */
#include "hct_diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int message_rank_ok = 1; /* only one rank of a job prints configuration problems */

void hct_message(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    /* one write: lines of different ranks do not interleave */
    char out[1100];
    int len = snprintf(out, sizeof(out), "hcatrace: %.*s", n, line);
    if (len > 0) {
        ssize_t w = write(STDERR_FILENO, out, (size_t)(len < (int)sizeof(out) ? len : (int)sizeof(out) - 1));
        (void)w;
    }
}

void hct_config_problems_here(int prints)
{
    message_rank_ok = prints;
}

void hct_config_problem_line(const char *line)
{
    if (message_rank_ok)
        hct_message("%s", line);
}

void hct_config_problem(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    hct_config_problem_line(line);
}

void hct_otf2_check(hct_thread *t, OTF2_ErrorCode rc)
{
    if (rc == OTF2_SUCCESS)
        return;
    t->dropped_events++;
    if (!hct.write_error[0])
        snprintf(hct.write_error, sizeof(hct.write_error), "%s", OTF2_Error_GetDescription(rc));
}

/* OTF2 reports its own errors here instead of printing them; the first one is
 * kept for the final message. */
static OTF2_ErrorCode otf2_error(void *user, const char *file, uint64_t line, const char *function,
                                 OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)user;
    (void)file;
    (void)line;
    (void)function;
    if (!hct.write_error[0]) {
        char msg[200];
        vsnprintf(msg, sizeof(msg), fmt ? fmt : "", va);
        snprintf(hct.write_error, sizeof(hct.write_error), "%s (%s)", msg, OTF2_Error_GetDescription(code));
    }
    return code;
}

void hct_otf2_errors_captured(void)
{
    OTF2_Error_RegisterCallback(otf2_error, NULL);
}

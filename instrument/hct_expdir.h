/* hct_expdir.h: claims a fresh experiment directory for a trace. */
#ifndef HCT_EXPDIR_H
#define HCT_EXPDIR_H

#include <stddef.h>

/* Creates the experiment directory: `requested` if given (it must not exist;
 * missing parents are created), else hcatrace-<exe>-<YYYYmmdd-HHMMSS>[-N] in the
 * working directory. Never reuses an existing directory. On failure writes a
 * one-line reason to err and returns -1. */
int hct_expdir_claim(const char *requested, const char *exe, char *out, size_t outlen, char *err,
                     size_t errlen);

#endif

/* hct_expdir.h: claims a fresh experiment directory for a trace. */
#ifndef HCT_EXPDIR_H
#define HCT_EXPDIR_H

#include <stddef.h>

/* Creates the experiment directory, 0700 until hct_expdir_publish: `requested`
 * if given (missing parents are created; when it exists, the first free
 * `requested.N`), else hcatrace-<exe>-<YYYYmmdd-HHMMSS>[-N] in the working directory.
 * Never reuses an existing directory. Returns 0; 1 when `requested` existed, with a
 * one-line note in err saying which name was taken instead; on failure -1 with a
 * one-line reason in err. */
int hct_expdir_claim(const char *requested, const char *exe, char *out, size_t outlen, char *err,
                     size_t errlen);

/* Once OTF2 has made DIR/traces: that directory and DIR become 0755. */
int hct_expdir_publish(const char *dir);

#endif

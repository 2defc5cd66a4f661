/* hct_expdir.c: claims a fresh experiment directory with mkdir, which is atomic,
 * so two processes or two runs in the same second never share or overwrite one. */
#include "hct_expdir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int make_parents(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int rc = mkdir(path, 0777);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

int hct_expdir_claim(const char *requested, const char *exe, char *out, size_t outlen, char *err, size_t errlen)
{
    if (requested) {
        if ((size_t)snprintf(out, outlen, "%s", requested) >= outlen) {
            snprintf(err, errlen, "HCATRACE_DIR is too long");
            return -1;
        }
        size_t len = strlen(out);
        while (len > 1 && out[len - 1] == '/')
            out[--len] = 0;
        if (make_parents(out) != 0 || mkdir(out, 0777) != 0) {
            if (errno == EEXIST)
                snprintf(err, errlen, "%s already exists; not overwriting it (choose a new HCATRACE_DIR)", out);
            else
                snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
            return -1;
        }
        return 0;
    }
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
    for (int attempt = 1; attempt < 1000; attempt++) {
        int n = attempt == 1 ? snprintf(out, outlen, "hcatrace-%s-%s", exe, stamp)
                             : snprintf(out, outlen, "hcatrace-%s-%s-%d", exe, stamp, attempt);
        if (n < 0 || (size_t)n >= outlen) {
            snprintf(err, errlen, "experiment directory name too long");
            return -1;
        }
        if (mkdir(out, 0777) == 0)
            return 0;
        if (errno != EEXIST) {
            char cwd[64] = ".";
            snprintf(err, errlen, "cannot create %s in the working directory %s: %s", out, cwd, strerror(errno));
            return -1;
        }
    }
    snprintf(err, errlen, "too many experiment directories named hcatrace-%s-%s*", exe, stamp);
    return -1;
}

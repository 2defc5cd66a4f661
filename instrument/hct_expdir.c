/* hct_expdir.c: claims a fresh experiment directory with mkdir, which is atomic,
 * so two processes or two runs in the same second never share or overwrite one.
 * The directory is made 0700 whatever the umask until OTF2 has made its traces/
 * subdirectory (with the umask's mode: OTF2 refuses one that exists), then both
 * become 0755: nobody else can plant a file or a symbolic link where the tracer
 * writes, and OTF2 opens its files by path only inside them. */
#include "hct_expdir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hca_schema.h"

#define EXPDIR_PRIVATE 0700
#define EXPDIR_MODE 0755

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

/* mkdir(path), private whatever the umask; fails with EEXIST on anything already there. */
static int make_fresh(const char *path)
{
    if (mkdir(path, EXPDIR_PRIVATE) != 0)
        return -1;
    return chmod(path, EXPDIR_PRIVATE);
}

int hct_expdir_publish(const char *dir)
{
    char sub[4096];
    snprintf(sub, sizeof(sub), "%s/%s", dir, HCA_ARCHIVE_NAME);
    struct stat st;
    int bad = lstat(sub, &st) != 0 || !S_ISDIR(st.st_mode) || chmod(sub, EXPDIR_MODE) != 0;
    bad |= chmod(dir, EXPDIR_MODE) != 0;
    return bad ? -1 : 0;
}

/* requested, or requested.N with the first N from 1 whose directory mkdir creates. */
static int claim_requested(const char *requested, char *out, size_t outlen, char *err, size_t errlen)
{
    if ((size_t)snprintf(out, outlen, "%s", requested) >= outlen) {
        snprintf(err, errlen, "HCATRACE_DIR is too long");
        return -1;
    }
    size_t len = strlen(out);
    while (len > 1 && out[len - 1] == '/')
        out[--len] = 0;
    if (make_parents(out) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
        return -1;
    }
    if (make_fresh(out) == 0)
        return 0;
    if (errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
        return -1;
    }
    char base[4096];
    snprintf(base, sizeof(base), "%s", out);
    for (int n = 1; n < 1000; n++) {
        if ((size_t)snprintf(out, outlen, "%s.%d", base, n) >= outlen) {
            snprintf(err, errlen, "HCATRACE_DIR is too long");
            return -1;
        }
        if (make_fresh(out) == 0) {
            snprintf(err, errlen, "%s already exists; writing the trace to %s instead", base, out);
            return 1;
        }
        if (errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
            return -1;
        }
    }
    snprintf(err, errlen, "%s and %s.1 to %s.999 already exist", base, base, base);
    return -1;
}

static int claim_stamped(const char *exe, char *out, size_t outlen, char *err, size_t errlen)
{
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
        if (make_fresh(out) == 0)
            return 0;
        if (errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s in the working directory: %s", out, strerror(errno));
            return -1;
        }
    }
    snprintf(err, errlen, "too many experiment directories named hcatrace-%s-%s*", exe, stamp);
    return -1;
}

int hct_expdir_claim(const char *requested, const char *exe, char *out, size_t outlen, char *err, size_t errlen)
{
    return requested ? claim_requested(requested, out, outlen, err, errlen)
                     : claim_stamped(exe, out, outlen, err, errlen);
}

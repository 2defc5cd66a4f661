/* read_archive.c: finding an hcatrace archive for hcafold's reader: the anchor
 * file named by a path, the OTF2 header check, OTF2's error messages kept per
 * thread, one-line failure messages. */
#include "read_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hca_schema.h"

_Thread_local char fold_otf2_message[256];

OTF2_ErrorCode fold_otf2_error_cb(void *user, const char *file, uint64_t line, const char *function,
                                  OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)user;
    (void)file;
    (void)line;
    (void)function;
    if (fmt && *fmt)
        vsnprintf(fold_otf2_message, sizeof(fold_otf2_message), fmt, va);
    else
        snprintf(fold_otf2_message, sizeof(fold_otf2_message), "%s", OTF2_Error_GetDescription(code));
    return code;
}

const char *fold_otf2_reason(OTF2_ErrorCode code)
{
    if (fold_otf2_message[0])
        return fold_otf2_message;
    return OTF2_Error_GetDescription(code);
}

int fold_fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
    if (err && errlen) {
        va_list va;
        va_start(va, fmt);
        vsnprintf(err, errlen, fmt, va);
        va_end(va);
        for (char *p = err; *p; p++) /* one line */
            if (*p == '\n')
                *p = ' ';
    }
    return status;
}

int fold_ends_with(const char *s, const char *suffix)
{
    if (!s)
        return 0;
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int fold_find_anchor(const char *path, char **anchor, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return fold_fail(err, errlen, FOLD_ERR_OPEN, "cannot open %s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return fold_fail(err, errlen, FOLD_ERR_OPEN, "cannot open %s: %s", path, strerror(errno));
        char *found = NULL;
        int several = 0, traces = 0;
        const struct dirent *e;
        while ((e = readdir(d))) {
            if (!fold_ends_with(e->d_name, HCA_ANCHOR_SUFFIX) || strlen(e->d_name) == strlen(HCA_ANCHOR_SUFFIX))
                continue;
            if (strcmp(e->d_name, HCA_ARCHIVE_NAME HCA_ANCHOR_SUFFIX) == 0)
                traces = 1;
            if (found)
                several = 1;
            else
                found = strdup(e->d_name);
        }
        closedir(d);
        if (traces) {
            free(found);
            found = strdup(HCA_ARCHIVE_NAME HCA_ANCHOR_SUFFIX);
            several = 0;
            if (!found)
                return fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
        }
        if (!found)
            return fold_fail(err, errlen, FOLD_ERR_NOT_OTF2, "%s is not an OTF2 archive: no .otf2 anchor file in it",
                             path);
        if (several) {
            free(found);
            return fold_fail(err, errlen, FOLD_ERR_NOT_OTF2, "%s holds several OTF2 archives: name the .otf2 file",
                             path);
        }
        size_t n = strlen(path) + strlen(found) + 2, dirlen = strlen(path);
        while (dirlen > 1 && path[dirlen - 1] == '/') /* "run/" names "run/traces.otf2", not "run//..." */
            dirlen--;
        *anchor = malloc(n);
        if (*anchor)
            snprintf(*anchor, n, "%.*s/%s", (int)dirlen, path, found);
        free(found);
        return *anchor ? FOLD_OK : fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return fold_fail(err, errlen, FOLD_ERR_OPEN, "cannot open %s: %s", path, strerror(errno));
    fclose(f);
    if (!S_ISREG(st.st_mode))
        return fold_fail(err, errlen, FOLD_ERR_NOT_OTF2, "%s is not an OTF2 archive", path);
    *anchor = strdup(path);
    return *anchor ? FOLD_OK : fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
}

/* An OTF2 anchor file begins with a small header holding "OTF2". Checking it
 * first gives text files a clear message (and spares OTF2_Reader_Open, which
 * leaks its archive on a bad anchor, most bad inputs). */
int fold_has_otf2_magic(const char *anchor)
{
    unsigned char head[16];
    FILE *f = fopen(anchor, "rb");
    if (!f)
        return 0;
    size_t n = fread(head, 1, sizeof(head), f);
    fclose(f);
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(head + i, "OTF2", 4) == 0)
            return 1;
    return 0;
}

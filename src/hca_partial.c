/* hca_partial.c: a rank's partial definitions file (see hca_partial.h). */
#include "hca_partial.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int hca_partial_write(const char *dir, const hca_partial_header *h, const hca_location_info *locs,
                      const unsigned char *defs, size_t defs_len)
{
    /* written under a temporary name, renamed when complete: a process killed while
     * writing (mpirun's SIGKILL after its SIGTERM) leaves no half file to read */
    char path[4096], tmp[4096];
    int n = snprintf(path, sizeof(path), "%s/" HCA_PARTIAL_FMT, dir, (int)h->rank);
    if (n < 0 || (size_t)n >= sizeof(path) || (size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    int bad = write_all(fd, h, sizeof(*h)) != 0 || write_all(fd, locs, h->nlocs * sizeof(*locs)) != 0 ||
              write_all(fd, defs, defs_len) != 0 || fsync(fd) != 0;
    int e = errno;
    bad |= close(fd) != 0;
    if (!bad && link(tmp, path) != 0) /* unlike rename, never replaces an existing file */
        bad = 1, e = errno;
    unlink(tmp);
    errno = e;
    return bad ? -1 : 0;
}

int hca_partial_read(const char *path, hca_partial *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof(*p));
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    unsigned char *defs = NULL;
    int ok = fread(&p->h, sizeof(p->h), 1, f) == 1 && memcmp(p->h.magic, HCA_PARTIAL_MAGIC, 8) == 0 &&
             p->h.nlocs < (1u << 20) && p->h.defs_len < ((uint64_t)1 << 32) && p->h.rank < p->h.size;
    if (ok) {
        p->h.how[sizeof(p->h.how) - 1] = 0;
        p->h.host[sizeof(p->h.host) - 1] = 0;
        p->h.exe[sizeof(p->h.exe) - 1] = 0;
        p->locs = calloc(p->h.nlocs + 1, sizeof(*p->locs));
        defs = malloc(p->h.defs_len + 1);
        ok = p->locs && defs && fread(p->locs, sizeof(*p->locs), p->h.nlocs, f) == p->h.nlocs &&
             fread(defs, 1, p->h.defs_len, f) == p->h.defs_len;
    }
    fclose(f);
    if (ok)
        ok = hca_defs_deserialize(&p->defs, defs, p->h.defs_len) == 0;
    free(defs);
    if (!ok) {
        free(p->locs);
        memset(p, 0, sizeof(*p));
        snprintf(err, errlen, "%s is not a complete partial definitions file", path);
        return -1;
    }
    return 0;
}

void hca_partial_free(hca_partial *p)
{
    free(p->locs);
    hca_defs_free(&p->defs);
    memset(p, 0, sizeof(*p));
}

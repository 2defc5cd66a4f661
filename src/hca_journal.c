/* hca_journal.c: a rank's definitions journal (see hca_journal.h). */
#include "hca_journal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}
#define FNV_BASIS 0xcbf29ce484222325ull

int hca_journal_append(int fd, const hca_partial_header *h, const hca_location_info *locs, const hca_defs *d,
                       hca_defs_marks *marks)
{
    unsigned char *defs = NULL;
    size_t defs_len = 0;
    if (hca_defs_serialize_since(d, marks, &defs, &defs_len) != 0) {
        errno = ENOMEM;
        return -1;
    }
    hca_journal_record r;
    memset(&r, 0, sizeof(r));
    memcpy(r.magic, HCA_JOURNAL_MAGIC, sizeof(r.magic));
    r.h = *h;
    r.h.defs_len = defs_len;
    r.base = *marks;
    size_t locs_len = (size_t)h->nlocs * sizeof(*locs);
    r.len = locs_len + defs_len;
    r.checksum = fnv1a(fnv1a(FNV_BASIS, locs, locs_len), defs, defs_len);
    struct iovec iov[3] = { { &r, sizeof(r) }, { (void *)locs, locs_len }, { defs, defs_len } };
    size_t total = sizeof(r) + locs_len + defs_len;
    /* one write: appended whole, or (full disk, a kill) cut short, which the reader sees */
    ssize_t n;
    do
        n = writev(fd, iov, 3);
    while (n < 0 && errno == EINTR);
    free(defs);
    if (n < 0 || (size_t)n != total) {
        if (n >= 0)
            errno = ENOSPC;
        return -1;
    }
    hca_defs_marks_of(d, marks);
    return 0;
}

int hca_journal_read(const char *path, hca_partial *p, unsigned *records, int *torn, char *err, size_t errlen)
{
    memset(p, 0, sizeof(*p));
    *records = 0;
    *torn = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    hca_defs_init(&p->defs);
    hca_journal_record r;
    unsigned char *body = NULL;
    for (;;) {
        size_t got = fread(&r, 1, sizeof(r), f);
        if (got == 0)
            break;
        int ok = got == sizeof(r) && memcmp(r.magic, HCA_JOURNAL_MAGIC, 8) == 0 &&
                 memcmp(r.h.magic, HCA_PARTIAL_MAGIC, 8) == 0 && r.h.nlocs < (1u << 20) &&
                 r.h.rank < r.h.size && r.len < ((uint64_t)1 << 32) &&
                 r.len == (uint64_t)r.h.nlocs * sizeof(hca_location_info) + r.h.defs_len;
        unsigned char *b = ok ? realloc(body, r.len + 1) : NULL;
        if (b)
            body = b;
        ok = ok && b && fread(body, 1, r.len, f) == r.len && fnv1a(FNV_BASIS, body, r.len) == r.checksum;
        hca_defs delta;
        size_t locs_len = (size_t)r.h.nlocs * sizeof(hca_location_info);
        ok = ok && (*records == 0 || (r.h.rank == p->h.rank && r.h.size == p->h.size)) &&
             hca_defs_deserialize(&delta, body + locs_len, r.h.defs_len) == 0;
        if (!ok) {
            *torn = 1;
            break;
        }
        ok = hca_defs_append(&p->defs, &r.base, &delta) == 0;
        hca_defs_free(&delta);
        hca_location_info *locs = ok ? calloc(r.h.nlocs + 1, sizeof(*locs)) : NULL;
        if (!locs) {
            *torn = 1; /* not what the previous records said: read up to them */
            break;
        }
        memcpy(locs, body, locs_len);
        free(p->locs);
        p->locs = locs;
        p->h = r.h;
        (*records)++;
    }
    fclose(f);
    free(body);
    if (*records == 0) {
        hca_defs_free(&p->defs);
        free(p->locs);
        memset(p, 0, sizeof(*p));
        snprintf(err, errlen, "%s holds no complete journal record", path);
        return -1;
    }
    p->h.how[sizeof(p->h.how) - 1] = 0;
    p->h.host[sizeof(p->h.host) - 1] = 0;
    p->h.exe[sizeof(p->h.exe) - 1] = 0;
    return 0;
}

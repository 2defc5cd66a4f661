/* hca_recover.c: rebuilding a trace from its ranks' partial definitions (see
 * hca_recover.h). OTF2 refuses to write into an existing archive directory, so the
 * definitions are written as a second archive, DIR/recover, whose files are then
 * moved beside the event files (the anchor file last: its presence means done). */
#include "hca_recover.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "hca_archive.h"
#include "hca_clock.h"
#include "hca_defs.h"
#include "hca_journal.h"
#include "hca_partial.h"
#include "hca_schema.h"

#define RECOVER_NAME "recover"

/* rank-N.partial (the rank wrote its definitions at its end) or rank-N.journal (the
 * definitions it appended during the run, at each flush: what a rank killed without
 * warning leaves) */
static int named(const char *name, const char *format)
{
    int rank, end = 0;
    return sscanf(name, format, &rank, &end) == 1 && end > 0 && name[end] == 0;
}

static int is_partial(const struct dirent *e)
{
    return named(e->d_name, "rank-%d.partial%n") || named(e->d_name, "rank-%d.journal%n");
}

static int is_journal(const char *name)
{
    size_t n = strlen(name);
    return n > 8 && strcmp(name + n - 8, ".journal") == 0;
}

int hca_recover_needed(const char *dir)
{
    char anchor[4096];
    snprintf(anchor, sizeof(anchor), "%s/%s%s", dir, HCA_ARCHIVE_NAME, HCA_ANCHOR_SUFFIX);
    if (access(anchor, F_OK) == 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    const struct dirent *e;
    while (!found && (e = readdir(d)))
        found = is_partial(e);
    closedir(d);
    return found;
}

static int by_rank(const void *a, const void *b)
{
    const hca_partial *x = a, *y = b;
    return (x->h.rank > y->h.rank) - (x->h.rank < y->h.rank);
}

/* OTF2's chunk layout (OTF2_Buffer.c): a chunk starts with CHUNK_HEADER, the byte
 * order, the numbers of its first and last events (uint64); an event file's last
 * chunk holds END_OF_FILE after its events. A buffer flushed during the run ends
 * each chunk with END_OF_CHUNK only: the file of a process killed then has no end. */
enum { CHUNK_HEADER = 3, END_OF_FILE = 2, CHUNK_HEADER_LEN = 18 };

/* Ends an event file of whole chunks, written during the run, with one chunk of no
 * events that holds END_OF_FILE (as OTF2 ends a file at its close). */
static int end_event_file(const char *path, off_t size)
{
    const off_t chunk = (off_t)OTF2_CHUNK_SIZE_EVENTS_DEFAULT;
    unsigned char head[CHUNK_HEADER_LEN + 1];
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int bad = pread(fd, head, CHUNK_HEADER_LEN, size - chunk) != CHUNK_HEADER_LEN || head[0] != CHUNK_HEADER;
    if (!bad) {
        uint64_t first, last;
        memcpy(&last, head + 10, sizeof(last));
        first = last + 1;
        memcpy(head + 2, &first, sizeof(first)); /* no events: first = last + 1 */
        head[CHUNK_HEADER_LEN] = END_OF_FILE;
        bad = pwrite(fd, head, sizeof(head), size) != (ssize_t)sizeof(head) || ftruncate(fd, size + chunk) != 0;
    }
    bad |= close(fd) != 0;
    return bad ? -1 : 0;
}

/* A rank known from its journal: its locations whose events reached a file (a
 * location's first flush may not have come), each file cut to whole chunks (a flush
 * cut short by a full disk or a kill leaves part of one, which OTF2 cannot read) and
 * ended. */
static void keep_flushed(const char *dir, hca_partial *p)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < p->h.nlocs; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s/%llu.evt", dir, HCA_ARCHIVE_NAME, (unsigned long long)p->locs[i].id);
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        off_t whole = st.st_size - st.st_size % (off_t)OTF2_CHUNK_SIZE_EVENTS_DEFAULT;
        if (whole != st.st_size && truncate(path, whole) != 0)
            continue;
        if (whole > 0 && end_event_file(path, whole) == 0)
            p->locs[kept++] = p->locs[i];
    }
    p->h.nlocs = kept;
}

/* Reads every DIR/rank-N.partial (or, where a rank left none, its journal), sorted by
 * rank. */
static int read_all(const char *dir, hca_partial **out, size_t *n, char *err, size_t errlen)
{
    struct dirent **names = NULL;
    int k = scandir(dir, &names, is_partial, alphasort);
    if (k <= 0) {
        snprintf(err, errlen, "%s: no partial definitions (rank-N.partial) to recover from", dir);
        free(names);
        return -1;
    }
    hca_partial *p = calloc((size_t)k, sizeof(*p));
    size_t m = 0;
    for (int i = 0; i < k; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
        /* a file that cannot be read is a rank that left nothing (said in the summary) */
        unsigned records;
        int torn;
        int journal = is_journal(names[i]->d_name);
        if (p && (journal ? hca_journal_read(path, &p[m], &records, &torn, err, errlen)
                          : hca_partial_read(path, &p[m], err, errlen)) == 0) {
            if (journal)
                keep_flushed(dir, &p[m]);
            m++;
        }
        free(names[i]);
    }
    free(names);
    if (!p || m == 0) {
        free(p);
        if (!p)
            snprintf(err, errlen, "out of memory");
        return -1;
    }
    qsort(p, m, sizeof(*p), by_rank);
    /* a rank's partial definitions hold all its journal does, and more */
    size_t kept = 0;
    for (size_t i = 0; i < m; i++) {
        if (kept > 0 && p[kept - 1].h.rank == p[i].h.rank) {
            int previous_is_journal = strcmp(p[kept - 1].h.how, HCA_JOURNAL_HOW) == 0;
            hca_partial_free(previous_is_journal ? &p[kept - 1] : &p[i]);
            if (previous_is_journal)
                p[kept - 1] = p[i];
            continue;
        }
        p[kept++] = p[i];
    }
    m = kept;
    *out = p;
    *n = m;
    return 0;
}

/* "rank 0: SIGTERM, 2.31 s; rank 1: nothing" for ranks 0..size-1. */
static void describe(const hca_partial *p, size_t n, uint32_t size, uint64_t job_begin, char *s, size_t len)
{
    size_t used = 0, k = 0;
    s[0] = 0;
    for (uint32_t r = 0; r < size && used < len; r++) {
        while (k < n && p[k].h.rank < r)
            k++;
        int w;
        if (k < n && p[k].h.rank == r) {
            double upto = ((double)((int64_t)p[k].h.end_ts + p[k].h.offset) - (double)job_begin) / 1e9;
            w = snprintf(s + used, len - used, "%srank %u: %s, trace up to %.2f s", r ? "; " : "", r, p[k].h.how,
                         upto);
        } else {
            w = snprintf(s + used, len - used, "%srank %u: nothing written (killed before it could write)",
                         r ? "; " : "", r);
        }
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* Moves DIR/recover's files beside the event files, the anchor last. */
static int move_into_place(const char *dir, const hca_partial *p, size_t n)
{
    char from[4096], to[4096];
    int bad = 0;
    for (size_t k = 0; k < n; k++)
        for (uint32_t i = 0; i < p[k].h.nlocs; i++) {
            snprintf(from, sizeof(from), "%s/%s/%llu.def", dir, RECOVER_NAME, (unsigned long long)p[k].locs[i].id);
            snprintf(to, sizeof(to), "%s/%s/%llu.def", dir, HCA_ARCHIVE_NAME, (unsigned long long)p[k].locs[i].id);
            bad |= rename(from, to) != 0;
        }
    snprintf(from, sizeof(from), "%s/%s.def", dir, RECOVER_NAME);
    snprintf(to, sizeof(to), "%s/%s.def", dir, HCA_ARCHIVE_NAME);
    bad |= rename(from, to) != 0;
    snprintf(from, sizeof(from), "%s/%s", dir, RECOVER_NAME);
    rmdir(from);
    snprintf(from, sizeof(from), "%s/%s%s", dir, RECOVER_NAME, HCA_ANCHOR_SUFFIX);
    snprintf(to, sizeof(to), "%s/%s%s", dir, HCA_ARCHIVE_NAME, HCA_ANCHOR_SUFFIX);
    if (!bad)
        bad |= rename(from, to) != 0;
    return bad ? -1 : 0;
}

static uint64_t flush_time(void *user)
{
    (void)user;
    return hca_clock_now();
}

/* The definitions of the merged set: local files, global file, anchor, in DIR/recover. */
static int write_defs(const char *dir, hca_defs *global, hca_defs_map *maps, const hca_partial *p, size_t n,
                      const hca_system_info *sys, const char *summary)
{
    hca_flush_clock clock = { flush_time, NULL, NULL };
    OTF2_Archive *ar = OTF2_Archive_Open(dir, RECOVER_NAME, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                                         OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    if (!ar)
        return -1;
    int bad = hca_archive_set_flush(ar, &clock) != OTF2_SUCCESS ||
              OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS;
    char creator[64];
    snprintf(creator, sizeof(creator), "hcatrace %s (recovered)", HCATRACE_VERSION);
    bad |= OTF2_Archive_SetCreator(ar, creator) != OTF2_SUCCESS;
    bad |= OTF2_Archive_SetMachineName(ar, HCA_MACHINE_NAME) != OTF2_SUCCESS;
    bad |= OTF2_Archive_SetProperty(ar, HCA_PROP_RECOVERED, summary, true) != OTF2_SUCCESS;
    bad |= OTF2_Archive_OpenDefFiles(ar) != OTF2_SUCCESS;
    for (size_t k = 0; k < n && !bad; k++)
        for (uint32_t i = 0; i < p[k].h.nlocs && !bad; i++) {
            OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, p[k].locs[i].id);
            bad |= !dw || hca_defs_write_mappings(&maps[k], dw) != 0 ||
                   OTF2_DefWriter_WriteClockOffset(dw, p[k].h.offset_ts, p[k].h.offset, 0.0) != OTF2_SUCCESS ||
                   OTF2_Archive_CloseDefWriter(ar, dw) != OTF2_SUCCESS;
        }
    bad |= OTF2_Archive_CloseDefFiles(ar) != OTF2_SUCCESS;
    OTF2_GlobalDefWriter *gw = bad ? NULL : OTF2_Archive_GetGlobalDefWriter(ar);
    bad |= !gw || hca_defs_write_global(global, sys, gw) != 0;
    if (gw)
        bad |= OTF2_Archive_CloseGlobalDefWriter(ar, gw) != OTF2_SUCCESS;
    bad |= OTF2_Archive_Close(ar) != OTF2_SUCCESS;
    return bad ? -1 : 0;
}

int hca_recover(const char *dir, char *summary, size_t summarylen, char *err, size_t errlen)
{
    hca_partial *p = NULL;
    size_t n = 0;
    if (read_all(dir, &p, &n, err, errlen) != 0)
        return -1;
    uint32_t size = p[0].h.size;
    hca_defs global;
    hca_defs_init(&global);
    hca_defs_map *maps = calloc(n, sizeof(*maps));
    const char **hosts = calloc(size, sizeof(*hosts)), **procs = calloc(size, sizeof(*procs));
    char (*proc_names)[32] = calloc(size, 32);
    size_t nlocs = 0;
    for (size_t k = 0; k < n; k++)
        nlocs += p[k].h.nlocs;
    hca_location_info *locs = calloc(nlocs + 1, sizeof(*locs));
    int rc = -1;
    if (!maps || !hosts || !procs || !proc_names || !locs) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    int64_t begin = INT64_MAX, end = INT64_MIN;
    size_t l = 0;
    for (size_t k = 0; k < n; k++) {
        if (p[k].h.size != size) {
            snprintf(err, errlen, "%s: partial definitions of jobs of %u and %u processes", dir, size, p[k].h.size);
            goto out;
        }
        if (hca_defs_merge(&global, &p[k].defs, &maps[k]) != 0) {
            snprintf(err, errlen, "out of memory merging the definitions");
            goto out;
        }
        int64_t b = (int64_t)p[k].h.begin_ts + p[k].h.offset, e = (int64_t)p[k].h.end_ts + p[k].h.offset;
        begin = b < begin ? b : begin;
        end = e > end ? e : end;
        memcpy(locs + l, p[k].locs, p[k].h.nlocs * sizeof(*locs));
        l += p[k].h.nlocs;
        hosts[p[k].h.rank] = p[k].h.host;
    }
    for (uint32_t r = 0; r < size; r++) {
        snprintf(proc_names[r], 32, HCA_MPI_PROCESS_NAME_FMT, (int)r);
        procs[r] = size > 1 ? proc_names[r] : p[0].h.exe;
        if (!hosts[r])
            hosts[r] = "unknown";
    }
    describe(p, n, size, (uint64_t)begin, summary, summarylen);
    hca_system_info sys = { size, hosts, procs, locs, (uint32_t)nlocs, HCA_CLOCK_RESOLUTION, (uint64_t)begin,
                            (uint64_t)(end - begin) + 1, hca_clock_realtime_of((uint64_t)begin), size > 1 };
    if (write_defs(dir, &global, maps, p, n, &sys, summary) != 0 || move_into_place(dir, p, n) != 0) {
        snprintf(err, errlen, "%s: writing the rebuilt definitions failed: %s", dir, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    for (size_t k = 0; k < n; k++) {
        if (maps)
            hca_defs_map_free(&maps[k]);
        hca_partial_free(&p[k]);
    }
    free(p);
    free(maps);
    free(hosts);
    free(procs);
    free(proc_names);
    free(locs);
    hca_defs_free(&global);
    return rc;
}

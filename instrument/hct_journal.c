/* hct_journal.c: the process's definitions journal (see hct_journal.h). */
#include "hct_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hca_clock.h"
#include "hca_journal.h"
#include "hct_callsite.h"
#include "hct_comms.h"
#include "hct_diag.h"
#include "hct_regions.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1, failed;
static hca_defs_marks marks; /* what the journal holds of hct.defs */
static uint64_t offset_time;
static int64_t offset;

void hct_journal_clock_offset(uint64_t time, int64_t off)
{
    offset_time = time;
    offset = off;
}

static int journal_path(char *path, size_t len)
{
    int n = snprintf(path, len, "%s/" HCA_JOURNAL_FMT, hct.expdir, hct.rank);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The locations that have an event writer now (their event counts are not known
 * here: 0, the recovery leaves them to the reader). */
static uint32_t locations(hca_location_info *locs, uint32_t max)
{
    uint32_t n = atomic_load(&hct.nthreads), k = 0;
    for (uint32_t i = 0; i < n && k < max; i++) {
        const hct_thread *t = hct.threads[i];
        if (t && t->writer)
            locs[k++] = (hca_location_info){ t->location_id, (uint32_t)hct.rank, t->index, 0 };
    }
    return k;
}

static void append(void)
{
    char path[4096];
    if (fd < 0) {
        if (journal_path(path, sizeof(path)) != 0)
            goto fail;
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0)
            goto fail;
    }
    if (hct_callsite_define(hct_region_def) != 0 || hct_comms_define() != 0)
        goto fail;
    static hca_location_info locs[HCT_MAX_THREADS]; /* under the lock */
    hca_partial_header h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, HCA_PARTIAL_MAGIC, sizeof(h.magic));
    h.rank = (uint32_t)hct.rank;
    h.size = hct.size > 0 ? (uint32_t)hct.size : 1;
    h.nlocs = locations(locs, HCT_MAX_THREADS);
    h.begin_ts = hct.program_begin_ts;
    h.end_ts = hca_clock_now();
    h.offset_ts = offset_time;
    h.offset = offset;
    snprintf(h.how, sizeof(h.how), "%s", HCA_JOURNAL_HOW);
    gethostname(h.host, sizeof(h.host) - 1);
    snprintf(h.exe, sizeof(h.exe), "%s", hct.exe);
    if (hca_journal_append(fd, &h, locs, &hct.defs, &marks) == 0)
        return;
fail:
    failed = 1;
    hct_message("appending to the definitions journal of %s failed (%s): after a kill or crash the trace holds "
                "only what was flushed before", hct.expdir, strerror(errno));
}

void hct_journal_prepare(void)
{
    if ((hct.mode != HCT_SERIAL && hct.mode != HCT_MPI) || !atomic_load(&hct.active) || hct.write_error[0])
        return;
    pthread_mutex_lock(&lock);
    if (!failed && (hct_callsite_define(hct_region_def) != 0 || hct_comms_define() != 0))
        failed = 1;
    pthread_mutex_unlock(&lock);
}

int hct_journal_before_flush(void *user, OTF2_FileType type, bool final)
{
    (void)user;
    if (type != OTF2_FILETYPE_EVENTS)
        return 1;
    if (hct.write_error[0])
        return 0;
    if (final || (hct.mode != HCT_SERIAL && hct.mode != HCT_MPI) || !atomic_load(&hct.active))
        return 1;
    pthread_mutex_lock(&lock);
    if (!failed)
        append();
    pthread_mutex_unlock(&lock);
    return 1;
}

void hct_journal_remove(void)
{
    pthread_mutex_lock(&lock);
    if (fd >= 0) {
        char path[4096];
        close(fd);
        fd = -1;
        if (journal_path(path, sizeof(path)) == 0)
            unlink(path);
    }
    failed = 1; /* nothing more */
    pthread_mutex_unlock(&lock);
}

/* read_pool.c: the locations dealt to --jobs reader threads, largest first to
 * the least loaded one; each opens its own OTF2_Reader on the archive and reads
 * the local definitions (mapping tables, clock offsets) and the events of its
 * locations (read_events.c). Nothing is shared between them but the read-only
 * definitions and the progress counts (events, locations). The first failure in location order is
 * reported, so the message does not depend on --jobs. */
#include "read_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *worker_main(void *arg)
{
    fold_worker *w = arg;
    fold_otf2_message[0] = 0;
    OTF2_Reader *r = OTF2_Reader_Open(w->anchor);
    if (!r || OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS) {
        w->status = fold_fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT, "cannot open %s (%s)", w->anchor,
                              fold_otf2_message[0] ? fold_otf2_message : "OTF2 reader");
        OTF2_Reader_Close(r);
        return NULL;
    }
    for (size_t i = 0; i < w->nlocs; i++)
        OTF2_Reader_SelectLocation(r, w->t->locations[w->locs[i]].id);
    int have_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(r);
    OTF2_EvtReaderCallbacks *cbs = OTF2_EvtReaderCallbacks_New();
    if (!cbs) {
        w->status = fold_fail(w->err, sizeof(w->err), FOLD_ERR_NOMEM, "out of memory");
    } else {
        fold_event_callbacks_set(cbs);
        for (size_t i = 0; i < w->nlocs && w->status == FOLD_OK; i++) {
            w->status = fold_read_location(w, r, cbs, have_defs, w->locs[i]);
            if (w->status == FOLD_OK && w->progress && w->progress->location_cb) {
                pthread_mutex_lock(&w->progress->lock);
                w->progress->locations_done++;
                w->progress->location_cb(w->progress->user, w->progress->locations_done,
                                         w->progress->locations_total);
                pthread_mutex_unlock(&w->progress->lock);
            }
        }
        OTF2_EvtReaderCallbacks_Delete(cbs);
    }
    if (have_defs)
        OTF2_Reader_CloseDefFiles(r);
    OTF2_Reader_CloseEvtFiles(r);
    OTF2_Reader_Close(r);
    return NULL;
}

int fold_read_locations(fold_trace *t, const fold_read_options *opts, const uint64_t *expected, char *err,
                        size_t errlen)
{
    int status = FOLD_OK;
    fold_worker *workers = NULL;
    size_t *order = NULL;
    size_t njobs = opts->jobs ? opts->jobs : 1;
    if (njobs > t->nlocations)
        njobs = t->nlocations;
    if (njobs == 0)
        njobs = 1;
    workers = calloc(njobs, sizeof(*workers));
    order = malloc((t->nlocations + 1) * sizeof(*order));
    size_t *slots = malloc((t->nlocations + 1) * sizeof(*slots));
    if (!workers || !order || !slots) {
        free(slots);
        status = fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* largest location first, to the least loaded worker */
    uint64_t total = 0;
    for (size_t i = 0; i < t->nlocations; i++) {
        order[i] = i;
        total += expected[i];
    }
    for (size_t i = 1; i < t->nlocations; i++) { /* insertion sort: stable, by events descending */
        size_t v = order[i], j = i;
        while (j > 0 && expected[order[j - 1]] < expected[v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    for (size_t i = 0; i < njobs; i++) {
        workers[i].locs = slots;
        workers[i].nlocs = 0;
    }
    /* count first, then place, so each worker's list is contiguous in slots */
    size_t *assign = calloc(t->nlocations + 1, sizeof(*assign));
    if (!assign) {
        free(slots);
        status = fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < t->nlocations; i++) {
        size_t best = 0;
        for (size_t k = 1; k < njobs; k++)
            if (workers[k].load < workers[best].load)
                best = k;
        workers[best].load += expected[order[i]] + 1;
        workers[best].nlocs++;
        assign[order[i]] = best;
    }
    size_t offset = 0;
    for (size_t k = 0; k < njobs; k++) {
        workers[k].locs = slots + offset;
        offset += workers[k].nlocs;
        workers[k].nlocs = 0;
    }
    for (size_t i = 0; i < t->nlocations; i++) {
        fold_worker *w = &workers[assign[order[i]]];
        w->locs[w->nlocs++] = order[i];
    }
    free(assign);

    fold_progress progress;
    memset(&progress, 0, sizeof(progress));
    pthread_mutex_init(&progress.lock, NULL);
    progress.total = total;
    progress.locations_total = t->nlocations;
    progress.cb = opts->progress;
    progress.location_cb = opts->location_progress;
    progress.user = opts->progress_user;
    for (size_t k = 0; k < njobs; k++) {
        workers[k].t = t;
        workers[k].o = opts;
        workers[k].anchor = t->path;
        workers[k].expected = expected;
        workers[k].progress = opts->progress || opts->location_progress ? &progress : NULL;
    }
    if (njobs == 1) {
        worker_main(&workers[0]);
    } else {
        size_t started = 0;
        for (size_t k = 0; k < njobs; k++) {
            if (pthread_create(&workers[k].thread, NULL, worker_main, &workers[k]) != 0) {
                workers[k].status = fold_fail(workers[k].err, sizeof(workers[k].err), FOLD_ERR_NOMEM,
                                              "cannot start a reader thread");
                break;
            }
            started++;
        }
        for (size_t k = 0; k < started; k++)
            pthread_join(workers[k].thread, NULL);
    }
    pthread_mutex_destroy(&progress.lock);
    /* the first failure in location order, so the message does not depend on --jobs */
    size_t first_bad = SIZE_MAX;
    for (size_t k = 0; k < njobs; k++)
        if (workers[k].status != FOLD_OK) {
            size_t idx = workers[k].nlocs ? workers[k].locs[0] : 0;
            for (size_t i = 0; i < workers[k].nlocs; i++)
                if (workers[k].locs[i] < idx)
                    idx = workers[k].locs[i];
            if (first_bad == SIZE_MAX || idx < first_bad) {
                first_bad = idx;
                status = fold_fail(err, errlen, workers[k].status, "%s", workers[k].err);
            }
        }
    free(slots);
out:
    free(workers);
    free(order);
    return status;
}

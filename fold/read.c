/* read.c: reads an hcatrace OTF2 archive into a fold_trace (see read.h): the
 * anchor file (read_archive.c), the global definitions once, in the calling
 * thread (read_defs.c), then the events of every location in parallel
 * (read_pool.c, read_events.c); the totals; freeing it all. */
#include "read_internal.h"

#include <stdlib.h>
#include <string.h>

#include "hca_schema_read.h"
#include "regions.h"

const char *fold_status_string(int status)
{
    switch (status) {
    case FOLD_OK:
        return "success";
    case FOLD_ERR_ARGS:
        return "bad arguments";
    case FOLD_ERR_OPEN:
        return "cannot open";
    case FOLD_ERR_NOT_OTF2:
        return "not an OTF2 archive";
    case FOLD_ERR_CORRUPT:
        return "truncated or corrupt archive";
    case FOLD_ERR_NOMEM:
        return "out of memory";
    default:
        return "unknown error";
    }
}

void fold_read_defaults(fold_read_options *o)
{
    memset(o, 0, sizeof(*o));
    o->jobs = 1;
    o->clock_offsets = 1;
}

int fold_read(const char *path, const fold_read_options *opts, fold_trace *t, char *err, size_t errlen)
{
    fold_read_options dflt;
    if (!opts) {
        fold_read_defaults(&dflt);
        opts = &dflt;
    }
    memset(t, 0, sizeof(*t));
    if (err && errlen)
        err[0] = 0;
    if (!path || !*path)
        return fold_fail(err, errlen, FOLD_ERR_ARGS, "no trace given");
    char *anchor = NULL;
    int status = fold_find_anchor(path, &anchor, err, errlen);
    if (status != FOLD_OK)
        return status;
    OTF2_ErrorCallback previous = OTF2_Error_RegisterCallback(fold_otf2_error_cb, NULL);
    uint64_t *expected = NULL;
    status = fold_read_global_defs(t, anchor, &expected, err, errlen);
    if (status != FOLD_OK)
        goto out;
    if (!expected || t->nlocations == 0) {
        status = fold_fail(err, errlen, FOLD_ERR_CORRUPT, "%s: the archive defines no locations", anchor);
        goto out;
    }
    t->path = anchor;
    anchor = NULL;

    status = fold_read_locations(t, opts, expected, err, errlen);
    if (status == FOLD_OK) {
        for (size_t i = 0; i < t->nlocations; i++) {
            t->nevents += t->locations[i].nevents;
            t->samples_read += t->locations[i].samples_read;
            t->samples_kept += t->locations[i].nsamples;
            t->samples_lost += t->locations[i].samples_lost;
            t->bare_bursts += t->locations[i].bare_bursts;
            t->bursts += t->locations[i].bursts;
            for (int w = 0; w < FOLD_LOST_WHY; w++)
                t->samples_lost_why[w] += t->locations[i].samples_lost_why[w];
        }
    }
out:
    OTF2_Error_RegisterCallback(previous, NULL);
    free(anchor);
    free(expected);
    if (status != FOLD_OK)
        fold_trace_free(t);
    return status;
}

void fold_trace_free(fold_trace *t)
{
    for (size_t i = 0; i < t->nlocations; i++) {
        fold_location *L = &t->locations[i];
        free(L->samples);
        free(L->instances);
        free(L->mpi_sites);
        fold_location_arena_free(L);
    }
    free(t->locations);
    fold_regions_free(t);
    for (size_t i = 0; i < t->nsets; i++) {
        free(t->sets[i].counters);
        free(t->sets[i].lost);
        free(t->sets[i].lost_why);
    }
    free(t->sets);
    for (size_t i = 0; i < t->nstrings; i++)
        free(t->strings[i]);
    free(t->strings);
    free(t->regions);
    free(t->thinned);
    free(t->contexts);
    free(t->counters);
    free(t->nan_row);
    free(t->path);
    free(t->creator);
    hca_properties properties = { t->property_names, t->property_values, t->nproperties };
    hca_properties_free(&properties);
    memset(t, 0, sizeof(*t));
}

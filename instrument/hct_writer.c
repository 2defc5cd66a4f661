/* hct_writer.c: the OTF2 archive of one traced process (see hct_writer.h). */
#include "hct_writer.h"

#include <otf2/OTF2_Pthread_Locks.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca_archive.h"
#include "hct.h"
#include "hct_buffers.h"
#include "hct_counter_model.h"
#include "hct_diag.h"
#include "hct_expdir.h"
#include "hct_frame_keys.h"
#include "hct_otf2_direct.h"

static uint64_t flush_time(void *user)
{
    (void)user;
    return hca_clock_now();
}

/* The definitions' chunks: OTF2's smallest. The definitions are written at the end
 * (kilobytes to a few MiB for a location); OTF2's default chunk, 4 MiB, is allocated
 * for each definition writer and copied once more when its file is written, the
 * largest allocation of a traced process's end (docs/benchmarks.md, "Peak resident
 * memory"). Event chunks stay OTF2's default: a partial trace is read by them
 * (hca_recover.c). */
#define DEFINITIONS_CHUNK_SIZE OTF2_CHUNK_SIZE_MIN

static hca_flush_clock flush_clock = { flush_time, NULL, NULL };

int hct_writer_open(OTF2_ErrorCode (*set_collectives)(OTF2_Archive *),
                    int (*before_flush)(void *user, OTF2_FileType type, bool final), void (*near_full)(void),
                    char *err, size_t errlen)
{
    flush_clock.before = before_flush;
    hct_otf2_direct_install(); /* or OTF2 buffers as before */
    OTF2_Archive *ar = OTF2_Archive_Open(hct.expdir, HCA_ARCHIVE_NAME, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                                         DEFINITIONS_CHUNK_SIZE, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    if (!ar) {
        snprintf(err, errlen, "cannot open an OTF2 archive in %s", hct.expdir);
        return -1;
    }
    OTF2_ErrorCode rc = hca_archive_set_flush(ar, &flush_clock);
    if (rc == OTF2_SUCCESS)
        rc = hct_buffers_attach(ar,
                                hct_buffers_budget(hct.cfg.total_memory_mib, hct.cfg.total_memory_set,
                                                   hct_buffers_local_ranks()),
                                near_full);
    if (rc == OTF2_SUCCESS)
        rc = set_collectives ? set_collectives(ar) : OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Pthread_Archive_SetLockingCallbacks(ar, NULL);
    if (rc == OTF2_SUCCESS) {
        char creator[64];
        snprintf(creator, sizeof(creator), "hcatrace %s", HCATRACE_VERSION);
        OTF2_Archive_SetCreator(ar, creator);
        OTF2_Archive_SetMachineName(ar, HCA_MACHINE_NAME);
        hct_counters_properties(hct.rank == 0 ? ar : NULL); /* the root writes the anchor file */
        if (hct.rank == 0 && hct.cfg.sampling)
            OTF2_Archive_SetProperty(ar, HCA_PROP_SAMPLING_CLOCK, HCT_CLOCK_NAME(hct.cfg.sampling_clock), true);
        rc = OTF2_Archive_OpenEvtFiles(ar);
    }
    if (rc != OTF2_SUCCESS) {
        snprintf(err, errlen, "cannot create the trace in %s: %s", hct.expdir,
                 hct.write_error[0] ? hct.write_error : OTF2_Error_GetDescription(rc));
        OTF2_Archive_Close(ar);
        return -1;
    }
    if (hct.rank == 0 && hct_expdir_publish(hct.expdir) != 0) {
        snprintf(err, errlen, "cannot set the mode of %s: %s", hct.expdir, strerror(errno));
        OTF2_Archive_Close(ar);
        return -1;
    }
    hct.archive = ar;
    return 0;
}

OTF2_EvtWriter *hct_writer_location(uint64_t location_id)
{
    return hct.archive ? OTF2_Archive_GetEvtWriter(hct.archive, location_id) : NULL;
}

/* At the end, each location's chunks are written to its file (straight from
 * them: hct_otf2_direct.h), then the frames are named (libdw's line tables): the
 * peak of a traced process's resident memory (docs/benchmarks.md, "Peak
 * resident memory"). Before them, the pages
 * the run no longer needs are given back: the debug sections the frames worker
 * read, and the free pages of the heaps (what the tracer and the program
 * freed); after the event files, the pages of their chunks. */
uint32_t hct_writer_close_locations(hca_location_info **out)
{
    hct_frame_keys_release();
    malloc_trim(0);
    uint32_t n = hct_writer_flush_locations(out);
    OTF2_Archive_CloseEvtFiles(hct.archive);
    malloc_trim(0);
    return n;
}

uint32_t hct_writer_flush_locations(hca_location_info **out)
{
    uint32_t n = atomic_load(&hct.nthreads), k = 0;
    hca_location_info *locs = calloc(n + 1, sizeof(*locs));
    for (uint32_t i = 0; i < n; i++) {
        hct_thread *t = hct.threads[i];
        if (!t || !t->writer)
            continue;
        uint64_t nevents = 0;
        OTF2_EvtWriter_GetNumberOfEvents(t->writer, &nevents);
        if (OTF2_Archive_CloseEvtWriter(hct.archive, t->writer) != OTF2_SUCCESS && !hct.write_error[0])
            snprintf(hct.write_error, sizeof(hct.write_error), "closing an event file failed");
        t->writer = NULL;
        if (locs)
            locs[k++] = (hca_location_info){ t->location_id, (uint32_t)hct.rank, t->index, nevents };
    }
    *out = locs;
    return locs ? k : 0;
}

int hct_writer_local_defs(const hca_defs_map *map, const hct_clock_offset *offsets, uint32_t noffsets)
{
    int bad = OTF2_Archive_OpenDefFiles(hct.archive) != OTF2_SUCCESS;
    uint32_t n = atomic_load(&hct.nthreads);
    for (uint32_t i = 0; i < n && !bad; i++) {
        hct_thread *t = hct.threads[i];
        if (!t || !t->has_location)
            continue;
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(hct.archive, t->location_id);
        if (!dw) {
            bad = 1;
            break;
        }
        bad |= hca_defs_write_mappings(map, dw) != 0;
        for (uint32_t k = 0; k < noffsets; k++)
            bad |= OTF2_DefWriter_WriteClockOffset(dw, offsets[k].time, offsets[k].offset, offsets[k].stddev) !=
                   OTF2_SUCCESS;
        bad |= OTF2_Archive_CloseDefWriter(hct.archive, dw) != OTF2_SUCCESS;
    }
    bad |= OTF2_Archive_CloseDefFiles(hct.archive) != OTF2_SUCCESS;
    return bad ? -1 : 0;
}

int hct_writer_global_defs(hca_defs *global, const hca_system_info *sys)
{
    OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(hct.archive);
    if (!gw)
        return -1;
    int bad = hca_defs_write_global(global, sys, gw);
    bad |= OTF2_Archive_CloseGlobalDefWriter(hct.archive, gw) != OTF2_SUCCESS;
    return bad ? -1 : 0;
}

int hct_writer_close(void)
{
    OTF2_ErrorCode rc = OTF2_Archive_Close(hct.archive);
    hct.archive = NULL;
    return rc == OTF2_SUCCESS ? 0 : -1;
}

/* Reports the end of the trace: where it is, or what went wrong. */
void hct_writer_report(int failed, uint64_t nevents, uint32_t nlocations)
{
    if (failed || hct.write_error[0])
        hct_message("writing the trace in %s failed: %s; the trace is incomplete", hct.expdir,
                    hct.write_error[0] ? hct.write_error : "unknown error");
    else if (hct.cfg.verbose >= 1)
        hct_message("trace written to %s/traces.otf2 (%u process%s, %u location%s, %llu events)", hct.expdir,
                    (unsigned)hct.size, hct.size == 1 ? "" : "es", nlocations, nlocations == 1 ? "" : "s",
                    (unsigned long long)nevents);
}

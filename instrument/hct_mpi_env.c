/* hct_mpi_env.c: the tracer inside an MPI job. At MPI_Init: agree on one fresh
 * experiment directory, open the job's archive with MPI collectives, measure
 * clock offsets. At MPI_Finalize (before PMPI_Finalize): each rank's own work
 * first (its event files closed, its call sites named, its definitions
 * serialized), then the ranks meet once, asleep until the last one arrives
 * (hct_mpi_quiet.h; so are their later waits for each other), measure
 * offsets again, unify definitions at rank 0
 * (gather, merge, scatter the ID maps), and write local and global
 * definitions. Only PMPI calls on private communicators. At an
 * end without MPI_Finalize (a signal, MPI_Abort, an exit): each rank writes its
 * events and its partial definitions (src/hca_partial.h), without MPI, for
 * hca_recover to unify afterwards. */
#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hct_callsite.h"
#include "hct_comms.h"
#include "hct_diag.h"
#include "hct_expdir.h"
#include "hct_frame_keys.h"
#include "hct_journal.h"
#include "hct_mpi.h"
#include "hct_mpi_env.h"
#include "hct_mpi_quiet.h"
#include "hct_recording.h"
#include "hct_regions.h"
#include "hct_rescue.h"
#include "hca_partial.h"
#include "hct_writer.h"

MPI_Comm hct_private_comm = MPI_COMM_NULL;
static hct_clock_offset offsets[2];
static uint32_t noffsets;

static OTF2_ErrorCode set_mpi_collectives(OTF2_Archive *ar)
{
    return OTF2_MPI_Archive_SetCollectiveCallbacks(ar, hct_private_comm, MPI_COMM_NULL);
}

/* Offset of this rank's clock to rank 0's, by the ping-pong with the smallest
 * round trip (Cristian's method). Collective over hct_private_comm. Rank 0
 * measures one peer after the other; a peer sleeps until its turn comes
 * (hct_quiet_wait), and rank 0 until the peer has woken: that first
 * ping-pong is not measured, the next ones are between two running ranks. */
static void measure_clock_offset(void)
{
    int rank = hct.rank, size = hct.size;
    int64_t my_offset = 0;
    double my_stddev = 0;
    uint64_t my_time = hca_clock_now();
    unsigned rounds = hct.cfg.clock_sync_rounds;
    uint64_t wake = 0;
    MPI_Request req;
    if (rank == 0) {
        for (int peer = 1; peer < size; peer++) {
            PMPI_Send(&wake, 1, MPI_UINT64_T, peer, 1, hct_private_comm);
            PMPI_Irecv(&wake, 1, MPI_UINT64_T, peer, 2, hct_private_comm, &req);
            hct_quiet_wait(&req);
            uint64_t best_rtt = UINT64_MAX;
            int64_t best = 0;
            for (unsigned k = 0; k < rounds; k++) {
                uint64_t t0 = hca_clock_now(), remote = 0;
                PMPI_Send(&t0, 1, MPI_UINT64_T, peer, 1, hct_private_comm);
                PMPI_Recv(&remote, 1, MPI_UINT64_T, peer, 2, hct_private_comm, MPI_STATUS_IGNORE);
                uint64_t t1 = hca_clock_now();
                if (t1 - t0 < best_rtt) {
                    best_rtt = t1 - t0;
                    best = (int64_t)(t0 + (t1 - t0) / 2) - (int64_t)remote;
                }
            }
            int64_t result[2] = { best, (int64_t)best_rtt };
            PMPI_Send(result, 2, MPI_INT64_T, peer, 3, hct_private_comm);
        }
    } else {
        PMPI_Irecv(&wake, 1, MPI_UINT64_T, 0, 1, hct_private_comm, &req);
        hct_quiet_wait(&req);
        PMPI_Send(&wake, 1, MPI_UINT64_T, 0, 2, hct_private_comm);
        for (unsigned k = 0; k < rounds; k++) {
            uint64_t t0 = 0, now;
            PMPI_Recv(&t0, 1, MPI_UINT64_T, 0, 1, hct_private_comm, MPI_STATUS_IGNORE);
            now = hca_clock_now();
            my_time = now;
            PMPI_Send(&now, 1, MPI_UINT64_T, 0, 2, hct_private_comm);
        }
        int64_t result[2];
        PMPI_Recv(result, 2, MPI_INT64_T, 0, 3, hct_private_comm, MPI_STATUS_IGNORE);
        my_offset = result[0];
        my_stddev = (double)result[1] / 2.0; /* the offset is exact to within half a round trip */
    }
    if (noffsets == 0)
        hct_journal_clock_offset(my_time, my_offset);
    if (noffsets < 2)
        offsets[noffsets++] = (hct_clock_offset){ my_time, my_offset, my_stddev };
}

int hct_mpi_start(void)
{
    if (hct.mode != HCT_MPI_PENDING)
        return 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &hct.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &hct.size);
    PMPI_Comm_dup(MPI_COMM_WORLD, &hct_private_comm);

    /* the node's shared symbolization attached by every rank before they meet */
    hct_frame_keys_node_join();

    /* rank 0 claims the directory; everybody learns its name or the failure */
    struct {
        int ok;
        char text[sizeof(hct.expdir)];
    } claim;
    memset(&claim, 0, sizeof(claim));
    if (hct.rank == 0) {
        char err[512];
        int claimed = hct_expdir_claim(hct.cfg.dir, hct.exe, claim.text, sizeof(claim.text), err, sizeof(err));
        claim.ok = claimed >= 0;
        if (!claim.ok)
            snprintf(claim.text, sizeof(claim.text), "%s", err);
        else if (claimed > 0)
            hct_message("%s", err);
    }
    PMPI_Bcast(&claim, (int)sizeof(claim), MPI_BYTE, 0, hct_private_comm);
    if (!claim.ok) {
        if (hct.rank == 0)
            hct_message("%s; running untraced", claim.text);
        goto off;
    }
    snprintf(hct.expdir, sizeof(hct.expdir), "%s", claim.text);

    char err[512] = "";
    int ok = hct_writer_open(set_mpi_collectives, hct_journal_before_flush, hct_journal_prepare, err,
                             sizeof(err)) == 0, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, hct_private_comm);
    hct_frame_keys_node_joined(); /* every rank has joined: the file's name removed */
    if (!all_ok) {
        if (!ok)
            hct_message("rank %d: %s; running untraced", hct.rank, err);
        if (hct.archive)
            hct_writer_close();
        goto off;
    }
    hct_comm_init();
    measure_clock_offset();
    hct.mode = HCT_MPI;
    hct.first_ts = hca_clock_now();
    atomic_store(&hct.active, 1);
    hct_write_program_begin();
    hct_rescue_arm(NULL, NULL); /* ahead of the handlers the MPI runtime installed */
    return 1;
off:
    hct_frame_keys_node_joined();
    hct.mode = HCT_OFF;
    PMPI_Comm_free(&hct_private_comm);
    return 0;
}

/* ---- unification --------------------------------------------------------- */

/* Gathers variable-size byte blobs at rank 0 (counts then data). */
static unsigned char *gather_blobs(const void *mine, int len, int **lens_out, int **displs_out)
{
    int *lens = NULL, *displs = NULL;
    unsigned char *all = NULL;
    if (hct.rank == 0) {
        lens = calloc((size_t)hct.size, sizeof(int));
        displs = calloc((size_t)hct.size, sizeof(int));
    }
    MPI_Request req; /* waits asleep: a rank may be off its CPU (hct_mpi_quiet.h) */
    PMPI_Igather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, hct_private_comm, &req);
    hct_quiet_wait(&req);
    if (hct.rank == 0 && lens && displs) {
        size_t total = 0;
        for (int r = 0; r < hct.size; r++) {
            displs[r] = (int)total;
            total += (size_t)lens[r];
        }
        all = malloc(total + 1);
    }
    PMPI_Igatherv(mine, len, MPI_BYTE, all, lens, displs, MPI_BYTE, 0, hct_private_comm, &req);
    hct_quiet_wait(&req);
    *lens_out = lens;
    *displs_out = displs;
    return all;
}

/* A map serialized as its seven arrays, each preceded by its length. */
static unsigned char *serialize_map(const hca_defs_map *m, int *len)
{
    const uint64_t *arrays[7] = { m->strings, m->regions, m->scls, m->ccs, m->comms, m->metrics, m->igens };
    const uint32_t counts[7] = { m->nstrings, m->nregions, m->nscls, m->nccs, m->ncomms, m->nmetrics, m->nigens };
    size_t total = 0;
    for (int i = 0; i < 7; i++)
        total += sizeof(uint32_t) + counts[i] * sizeof(uint64_t);
    unsigned char *buf = malloc(total), *p = buf;
    if (!buf)
        return NULL;
    for (int i = 0; i < 7; i++) {
        memcpy(p, &counts[i], sizeof(uint32_t));
        p += sizeof(uint32_t);
        memcpy(p, arrays[i], counts[i] * sizeof(uint64_t));
        p += counts[i] * sizeof(uint64_t);
    }
    *len = (int)total;
    return buf;
}

static int deserialize_map(const unsigned char *buf, int len, hca_defs_map *m)
{
    uint64_t **arrays[7] = { &m->strings, &m->regions, &m->scls, &m->ccs, &m->comms, &m->metrics, &m->igens };
    uint32_t *counts[7] = { &m->nstrings, &m->nregions, &m->nscls, &m->nccs, &m->ncomms, &m->nmetrics, &m->nigens };
    memset(m, 0, sizeof(*m));
    const unsigned char *p = buf, *end = buf + len;
    for (int i = 0; i < 7; i++) {
        if (end - p < (ptrdiff_t)sizeof(uint32_t))
            goto fail;
        memcpy(counts[i], p, sizeof(uint32_t));
        p += sizeof(uint32_t);
        size_t bytes = (size_t)*counts[i] * sizeof(uint64_t);
        if ((size_t)(end - p) < bytes)
            goto fail;
        *arrays[i] = malloc(bytes + sizeof(uint64_t));
        if (!*arrays[i])
            goto fail;
        memcpy(*arrays[i], p, bytes);
        p += bytes;
    }
    return 0;
fail:
    hca_defs_map_free(m);
    return -1;
}

/* Returns 0 on every rank when the definitions were unified; rank 0 keeps the
 * global set in *global, every rank its map in *map. mine: this rank's
 * definitions serialized (NULL: failed), freed here. */
static int unify(hca_defs *global, hca_defs_map *map, unsigned char *mine, size_t mine_len)
{
    int ok = mine && mine_len < (size_t)INT32_MAX;
    int *lens = NULL, *displs = NULL;
    unsigned char *all = gather_blobs(mine, ok ? (int)mine_len : 0, &lens, &displs);
    free(mine);
    unsigned char *maps_out = NULL;
    int *map_lens = NULL, *map_displs = NULL;
    if (hct.rank == 0) {
        map_lens = calloc((size_t)hct.size, sizeof(int));
        map_displs = calloc((size_t)hct.size, sizeof(int));
        unsigned char **blobs = calloc((size_t)hct.size, sizeof(*blobs));
        size_t total = 0;
        for (int r = 0; r < hct.size && all && map_lens && map_displs && blobs; r++) {
            hca_defs local;
            hca_defs_map m;
            if (hca_defs_deserialize(&local, all + displs[r], (size_t)lens[r]) != 0)
                continue;
            if (hca_defs_merge(global, &local, &m) == 0) {
                blobs[r] = serialize_map(&m, &map_lens[r]);
                hca_defs_map_free(&m);
            }
            hca_defs_free(&local);
            map_displs[r] = (int)total;
            total += blobs[r] ? (size_t)map_lens[r] : 0;
            if (!blobs[r])
                map_lens[r] = 0;
        }
        maps_out = malloc(total + 1);
        for (int r = 0; r < hct.size && maps_out && blobs; r++)
            if (blobs[r])
                memcpy(maps_out + map_displs[r], blobs[r], (size_t)map_lens[r]);
        for (int r = 0; r < hct.size && blobs; r++)
            free(blobs[r]);
        free(blobs);
    }
    int my_len = 0;
    MPI_Request merged; /* the others wait for rank 0's merge, asleep */
    PMPI_Iscatter(map_lens, 1, MPI_INT, &my_len, 1, MPI_INT, 0, hct_private_comm, &merged);
    hct_quiet_wait(&merged);
    unsigned char *my_map = malloc((size_t)my_len + 1);
    PMPI_Iscatterv(maps_out, map_lens, map_displs, MPI_BYTE, my_map, my_len, MPI_BYTE, 0, hct_private_comm, &merged);
    hct_quiet_wait(&merged);
    ok = my_map && my_len > 0 && deserialize_map(my_map, my_len, map) == 0;
    free(my_map);
    free(maps_out);
    free(map_lens);
    free(map_displs);
    free(all);
    free(lens);
    free(displs);
    int all_ok = 0;
    PMPI_Iallreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, hct_private_comm, &merged);
    hct_quiet_wait(&merged);
    if (ok && !all_ok)
        hca_defs_map_free(map);
    return all_ok ? 0 : -1;
}

/* ---- the end ------------------------------------------------------------- */

void hct_mpi_finish(void)
{
    if (hct.mode != HCT_MPI || !hct_rescue_claim())
        return;
    hct_stop_recording();
    uint64_t last_ts = hca_clock_now();

    /* this rank's own work, while the others may still run or do theirs */
    hca_location_info *locs = NULL;
    uint32_t nlocs = hct_writer_close_locations(&locs);
    int ok = hct_callsite_define(hct_region_def) == 0 && hct_regions_define_thinned() == 0 && hct_comms_define() == 0;
    if (hct.cfg.verbose >= 2)
        hct_frame_keys_node_report(hct.rank);
    unsigned char *mine = NULL;
    size_t mine_len = 0;
    if (hca_defs_serialize(&hct.defs, &mine, &mine_len) != 0)
        mine = NULL;

    /* then the ranks meet, asleep until the last one comes */
    hct_quiet_barrier(hct_private_comm);
    measure_clock_offset();
    hca_defs global;
    hca_defs_init(&global);
    hca_defs_map map;
    memset(&map, 0, sizeof(map));
    int failed = unify(&global, &map, mine, mine_len) != 0 || !ok;
    if (!failed)
        failed |= hct_writer_local_defs(&map, offsets, noffsets) != 0;
    else
        hct_writer_local_defs(&map, offsets, 0); /* collective: keep every rank in step */

    /* the system tree: hostnames, locations, time range, all at rank 0 */
    char host[256] = "localhost";
    gethostname(host, sizeof(host) - 1);
    int *lens, *displs;
    char *hosts = (char *)gather_blobs(host, (int)sizeof(host), &lens, &displs);
    free(lens);
    free(displs);
    int nbytes = (int)(nlocs * sizeof(hca_location_info));
    hca_location_info *all_locs = (hca_location_info *)gather_blobs(locs, nbytes, &lens, &displs);
    int64_t begin = (int64_t)hct.program_begin_ts + offsets[0].offset;
    int64_t end = (int64_t)last_ts + offsets[noffsets - 1].offset;
    int64_t range[2] = { begin, -end }, grange[2];
    MPI_Request req;
    PMPI_Ireduce(range, grange, 2, MPI_INT64_T, MPI_MIN, 0, hct_private_comm, &req);
    hct_quiet_wait(&req);
    uint64_t nevents_local = 0, nevents = 0;
    for (uint32_t i = 0; i < nlocs; i++)
        nevents_local += locs[i].nevents;
    PMPI_Ireduce(&nevents_local, &nevents, 1, MPI_UINT64_T, MPI_SUM, 0, hct_private_comm, &req);
    hct_quiet_wait(&req);
    uint32_t total_locs = 0;
    if (hct.rank == 0 && hosts && all_locs && lens) {
        const char **host_names = calloc((size_t)hct.size, sizeof(char *));
        char (*proc_names)[32] = calloc((size_t)hct.size, 32);
        const char **proc_ptrs = calloc((size_t)hct.size, sizeof(char *));
        for (int r = 0; r < hct.size && host_names && proc_names && proc_ptrs; r++) {
            host_names[r] = hosts + (size_t)r * sizeof(host);
            snprintf(proc_names[r], 32, HCA_MPI_PROCESS_NAME_FMT, r);
            proc_ptrs[r] = proc_names[r];
            total_locs += (uint32_t)(lens[r] / (int)sizeof(hca_location_info));
        }
        if (host_names && proc_names && proc_ptrs && !failed) {
            uint64_t g_begin = (uint64_t)grange[0], g_end = (uint64_t)(-grange[1]);
            hca_system_info sys = { (uint32_t)hct.size, host_names, proc_ptrs, all_locs, total_locs,
                                    HCA_CLOCK_RESOLUTION, g_begin, g_end - g_begin + 1,
                                    hca_clock_realtime_of(g_begin), 1 }; /* rank 0 keeps the job time */
            failed |= hct_writer_global_defs(&global, &sys) != 0;
        }
        free(host_names);
        free(proc_names);
        free(proc_ptrs);
    }
    free(lens);
    free(displs);
    free(hosts);
    free(all_locs);
    free(locs);
    failed |= hct_writer_close() != 0;
    int any_failed = 0;
    /* the others wait for rank 0's global definitions */
    PMPI_Iallreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, hct_private_comm, &req);
    hct_quiet_wait(&req);
    if (hct.rank == 0)
        hct_writer_report(any_failed, nevents, total_locs);
    if (!any_failed)
        hct_journal_remove();
    hca_defs_map_free(&map);
    hca_defs_free(&global);
    PMPI_Comm_free(&hct_private_comm);
    hct.mode = HCT_OFF;
}

/* ---- the end without MPI_Finalize ---------------------------------------- */

void hct_mpi_rescue(const char *how)
{
    if (hct.mode != HCT_MPI)
        return;
    hct.mode = HCT_OFF;
    hct_stop_recording();
    uint64_t last_ts = hca_clock_now();
    hca_location_info *locs = NULL;
    uint32_t nlocs = hct_writer_flush_locations(&locs);
    int bad = hct_callsite_define(hct_region_def) != 0 || hct_regions_define_thinned() != 0 || hct_comms_define() != 0 || !locs;
    unsigned char *defs = NULL;
    size_t len = 0;
    bad |= hca_defs_serialize(&hct.defs, &defs, &len) != 0;
    hca_partial_header h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, HCA_PARTIAL_MAGIC, sizeof(h.magic));
    h.rank = (uint32_t)hct.rank;
    h.size = (uint32_t)hct.size;
    h.nlocs = nlocs;
    h.begin_ts = hct.program_begin_ts;
    h.end_ts = last_ts;
    h.offset_ts = offsets[0].time;
    h.offset = offsets[0].offset;
    h.defs_len = len;
    snprintf(h.how, sizeof(h.how), "%s", how);
    gethostname(h.host, sizeof(h.host) - 1);
    snprintf(h.exe, sizeof(h.exe), "%s", hct.exe);
    if (!bad && hca_partial_write(hct.expdir, &h, locs, defs, len) != 0)
        bad = 1;
    if (!bad)
        hct_journal_remove(); /* the partial definitions hold all of it */
    if (bad)
        hct_message("rank %d ended by %s; writing its partial trace in %s failed%s%s", hct.rank, how, hct.expdir,
                    hct.write_error[0] ? ": " : "", hct.write_error);
    else if (hct.rank == 0 || (strcmp(how, "SIGTERM") != 0 && strcmp(how, "SIGINT") != 0))
        hct_message("rank %d ended by %s; the job's partial trace is in %s (hcafold rebuilds it, or: hcatrace "
                    "recover %s)", hct.rank, how, hct.expdir, hct.expdir);
    free(defs);
    free(locs);
}

void hct_mpi_abort(void)
{
    if (hct.mode == HCT_MPI && hct_rescue_claim())
        hct_mpi_rescue("MPI_Abort");
}

/* tracestat.c: test tool that reads an hcatrace OTF2 archive with the OTF2
 * reader and prints facts the end-to-end tests assert on, one per line:
 *   location <id> rank <r> events <n> mpi_calls <n> balanced <yes|no> monotonic <yes|no>
 *            samples <n> program_begin <n> program_end <n>
 *   callsite <region> <caller> <file>:<line> <count>      (summed over locations)
 *   comm <name> size <n>
 *   records <kind> <count>                              (message and collective records)
 * Exit status 0 when the archive could be read, 1 otherwise. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#define MAXDEPTH 256

typedef struct {
    uint64_t id;
    uint32_t group;
    uint64_t events, mpi_calls, samples, program_begin, program_end;
    uint32_t stack[MAXDEPTH];
    int depth, balanced, monotonic;
    uint64_t last_ts;
} loc_t;

typedef struct {
    char **strings;
    uint32_t nstrings;
    struct {
        uint32_t name, file, line_begin, paradigm;
    } *regions;
    uint32_t nregions;
    struct {
        uint32_t file, line;
    } *scls;
    uint32_t nscls;
    struct {
        uint32_t region, scl, parent;
    } *ccs;
    uint32_t nccs;
    uint64_t *cc_count;
    struct {
        uint32_t name, group;
    } *comms;
    uint32_t ncomms;
    uint32_t *group_size;
    uint32_t ngroups;
    loc_t *locs;
    uint32_t nlocs;
    uint64_t rec_send, rec_recv, rec_isend, rec_isend_complete, rec_irecv_request, rec_irecv, rec_coll_begin,
        rec_coll_end, rec_nbc_request, rec_nbc_complete;
} trace_t;

static trace_t T;

#define GROW(arr, n, idx)                                                                        \
    do {                                                                                         \
        if ((idx) >= (n)) {                                                                      \
            uint32_t nn_ = (idx) + 1;                                                            \
            void *p_ = realloc((arr), nn_ * sizeof(*(arr)));                                     \
            if (!p_)                                                                             \
                abort();                                                                         \
            (arr) = p_;                                                                          \
            memset(&(arr)[(n)], 0, (nn_ - (n)) * sizeof(*(arr)));                                \
            (n) = nn_;                                                                           \
        }                                                                                        \
    } while (0)

static const char *str(uint32_t id)
{
    return id < T.nstrings && T.strings[id] ? T.strings[id] : "?";
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
    (void)u;
    GROW(T.strings, T.nstrings, self);
    T.strings[self] = strdup(s);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canon,
                                    OTF2_StringRef descr, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    (void)u;
    (void)canon;
    (void)descr;
    (void)role;
    (void)flags;
    (void)end;
    GROW(T.regions, T.nregions, self);
    T.regions[self].name = name;
    T.regions[self].file = file;
    T.regions[self].line_begin = begin;
    T.regions[self].paradigm = paradigm;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_scl(void *u, OTF2_SourceCodeLocationRef self, OTF2_StringRef file, uint32_t line)
{
    (void)u;
    GROW(T.scls, T.nscls, self);
    T.scls[self].file = file;
    T.scls[self].line = line;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_cc(void *u, OTF2_CallingContextRef self, OTF2_RegionRef region,
                                OTF2_SourceCodeLocationRef scl, OTF2_CallingContextRef parent)
{
    (void)u;
    uint32_t ncounts = T.nccs;
    GROW(T.ccs, T.nccs, self);
    GROW(T.cc_count, ncounts, self);
    T.ccs[self].region = region;
    T.ccs[self].scl = scl;
    T.ccs[self].parent = parent;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)u;
    (void)name;
    (void)type;
    (void)paradigm;
    (void)flags;
    (void)members;
    GROW(T.group_size, T.ngroups, self);
    T.group_size[self] = type == OTF2_GROUP_TYPE_COMM_SELF ? 1 : n;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)u;
    (void)parent;
    (void)flags;
    GROW(T.comms, T.ncomms, self);
    T.comms[self].name = name;
    T.comms[self].group = group;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t nevents, OTF2_LocationGroupRef group)
{
    (void)u;
    (void)name;
    (void)type;
    (void)nevents;
    uint32_t i = T.nlocs;
    GROW(T.locs, T.nlocs, i);
    T.locs[i].id = self;
    T.locs[i].group = group;
    T.locs[i].balanced = 1;
    T.locs[i].monotonic = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static void event(loc_t *l, OTF2_TimeStamp ts)
{
    l->events++;
    if (ts < l->last_ts)
        l->monotonic = 0;
    l->last_ts = ts;
}

static OTF2_CallbackCode ev_cc_enter(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                     OTF2_AttributeList *a, OTF2_CallingContextRef cc, uint32_t unwind)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)unwind;
    loc_t *l = u;
    event(l, ts);
    if (l->depth >= MAXDEPTH || cc >= T.nccs) {
        l->balanced = 0;
        return OTF2_CALLBACK_SUCCESS;
    }
    l->stack[l->depth++] = cc;
    T.cc_count[cc]++;
    uint32_t region = T.ccs[cc].region;
    if (region < T.nregions && T.regions[region].paradigm == OTF2_PARADIGM_MPI)
        l->mpi_calls++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_cc_leave(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                     OTF2_AttributeList *a, OTF2_CallingContextRef cc)
{
    (void)loc;
    (void)pos;
    (void)a;
    loc_t *l = u;
    event(l, ts);
    if (l->depth == 0 || l->stack[l->depth - 1] != cc)
        l->balanced = 0;
    else
        l->depth--;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_sample(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                   OTF2_AttributeList *a, OTF2_CallingContextRef cc, uint32_t unwind,
                                   OTF2_InterruptGeneratorRef gen)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)cc;
    (void)unwind;
    (void)gen;
    loc_t *l = u;
    event(l, ts);
    l->samples++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef r)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)r;
    /* the schema records regions as calling-context events only */
    loc_t *l = u;
    event(l, ts);
    l->balanced = 0;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_begin(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                          OTF2_AttributeList *a, OTF2_StringRef name, uint32_t n,
                                          const OTF2_StringRef *args)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)name;
    (void)n;
    (void)args;
    loc_t *l = u;
    event(l, ts);
    l->program_begin++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_end(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                        OTF2_AttributeList *a, int64_t status)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)status;
    loc_t *l = u;
    event(l, ts);
    l->program_end++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Message and collective records: counted, and timestamps checked. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define COUNTING_CB(fn, counter, ...)                                                                      \
    static OTF2_CallbackCode fn(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,           \
                                OTF2_AttributeList *a, __VA_ARGS__)                                       \
    {                                                                                                      \
        (void)loc;                                                                                         \
        (void)pos;                                                                                         \
        (void)a;                                                                                           \
        event(u, ts);                                                                                      \
        T.counter++;                                                                                       \
        return OTF2_CALLBACK_SUCCESS;                                                                      \
    }
COUNTING_CB(ev_send, rec_send, uint32_t r, OTF2_CommRef c, uint32_t t, uint64_t b)
COUNTING_CB(ev_recv, rec_recv, uint32_t r, OTF2_CommRef c, uint32_t t, uint64_t b)
COUNTING_CB(ev_isend, rec_isend, uint32_t r, OTF2_CommRef c, uint32_t t, uint64_t b, uint64_t q)
COUNTING_CB(ev_isend_complete, rec_isend_complete, uint64_t q)
COUNTING_CB(ev_irecv_request, rec_irecv_request, uint64_t q)
COUNTING_CB(ev_irecv, rec_irecv, uint32_t r, OTF2_CommRef c, uint32_t t, uint64_t b, uint64_t q)
COUNTING_CB(ev_coll_end, rec_coll_end, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t r, uint64_t s, uint64_t v)
COUNTING_CB(ev_nbc_request, rec_nbc_request, uint64_t q)
COUNTING_CB(ev_nbc_complete, rec_nbc_complete, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t r, uint64_t s,
            uint64_t v, uint64_t q)
#pragma GCC diagnostic pop

static OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                       OTF2_AttributeList *a)
{
    (void)loc;
    (void)pos;
    (void)a;
    event(u, ts);
    T.rec_coll_begin++;
    return OTF2_CALLBACK_SUCCESS;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tracestat ARCHIVE/traces.otf2\n");
        return 2;
    }
    OTF2_Reader *r = OTF2_Reader_Open(argv[1]);
    if (!r || OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS) {
        fprintf(stderr, "tracestat: cannot open %s\n", argv[1]);
        return 1;
    }
    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(gcb, def_scl);
    OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(gcb, def_cc);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gd, gcb, NULL);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    uint64_t ndefs;
    if (OTF2_Reader_ReadAllGlobalDefinitions(r, gd, &ndefs) != OTF2_SUCCESS) {
        fprintf(stderr, "tracestat: cannot read definitions of %s\n", argv[1]);
        return 1;
    }
    OTF2_Reader_CloseGlobalDefReader(r, gd);

    for (uint32_t i = 0; i < T.nlocs; i++)
        OTF2_Reader_SelectLocation(r, T.locs[i].id);
    int have_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(r);
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback(ecb, ev_cc_enter);
    OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback(ecb, ev_cc_leave);
    OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(ecb, ev_sample);
    OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, ev_enter);
    OTF2_EvtReaderCallbacks_SetProgramBeginCallback(ecb, ev_program_begin);
    OTF2_EvtReaderCallbacks_SetProgramEndCallback(ecb, ev_program_end);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, ev_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, ev_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, ev_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, ev_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(ecb, ev_nbc_request);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(ecb, ev_nbc_complete);
    int status = 0;
    for (uint32_t i = 0; i < T.nlocs; i++) {
        loc_t *l = &T.locs[i];
        if (have_defs) {
            OTF2_DefReader *d = OTF2_Reader_GetDefReader(r, l->id);
            if (d) {
                uint64_t n;
                OTF2_Reader_ReadAllLocalDefinitions(r, d, &n);
                OTF2_Reader_CloseDefReader(r, d);
            }
        }
        OTF2_EvtReader *e = OTF2_Reader_GetEvtReader(r, l->id);
        if (!e) {
            status = 1;
            continue;
        }
        /* raw local clock: monotonicity is a property of each location's writer */
        OTF2_EvtReader_ApplyClockOffsets(e, false);
        OTF2_Reader_RegisterEvtCallbacks(r, e, ecb, l);
        uint64_t n;
        if (OTF2_Reader_ReadAllLocalEvents(r, e, &n) != OTF2_SUCCESS)
            status = 1;
        OTF2_Reader_CloseEvtReader(r, e);
        if (l->depth != 0)
            l->balanced = 0;
    }
    OTF2_EvtReaderCallbacks_Delete(ecb);
    if (have_defs)
        OTF2_Reader_CloseDefFiles(r);
    OTF2_Reader_CloseEvtFiles(r);
    OTF2_Reader_Close(r);

    printf("locations %u\n", T.nlocs);
    for (uint32_t i = 0; i < T.nlocs; i++) {
        const loc_t *l = &T.locs[i];
        printf("location %" PRIu64 " rank %u events %" PRIu64 " mpi_calls %" PRIu64
               " balanced %s monotonic %s samples %" PRIu64 " program_begin %" PRIu64 " program_end %" PRIu64 "\n",
               l->id, l->group, l->events, l->mpi_calls, l->balanced ? "yes" : "no", l->monotonic ? "yes" : "no",
               l->samples, l->program_begin, l->program_end);
    }
    for (uint32_t i = 0; i < T.nccs; i++) {
        if (!T.cc_count[i])
            continue;
        uint32_t region = T.ccs[i].region, parent = T.ccs[i].parent;
        const char *caller = "-", *file = "-";
        uint32_t line = 0;
        if (parent < T.nccs) {
            caller = str(T.regions[T.ccs[parent].region].name);
            uint32_t scl = T.ccs[parent].scl;
            if (scl < T.nscls) {
                file = str(T.scls[scl].file);
                line = T.scls[scl].line;
            }
        }
        printf("callsite %s %s %s:%u %" PRIu64 "\n", str(T.regions[region].name), caller, file, line, T.cc_count[i]);
    }
    for (uint32_t i = 0; i < T.ncomms; i++)
        printf("comm %s size %u\n", str(T.comms[i].name),
               T.comms[i].group < T.ngroups ? T.group_size[T.comms[i].group] : 0);
    printf("records send %" PRIu64 "\nrecords recv %" PRIu64 "\nrecords isend %" PRIu64
           "\nrecords isend_complete %" PRIu64 "\nrecords irecv_request %" PRIu64 "\nrecords irecv %" PRIu64
           "\nrecords collective_begin %" PRIu64 "\nrecords collective_end %" PRIu64
           "\nrecords nbc_request %" PRIu64 "\nrecords nbc_complete %" PRIu64 "\n",
           T.rec_send, T.rec_recv, T.rec_isend, T.rec_isend_complete, T.rec_irecv_request, T.rec_irecv,
           T.rec_coll_begin, T.rec_coll_end, T.rec_nbc_request, T.rec_nbc_complete);
    return status;
}

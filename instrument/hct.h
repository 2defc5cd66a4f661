/* hct.h: the tracer's internal interface, shared by the files of libhcatrace.so:
 * process state, per-thread locations, recording of calling-context regions,
 * region boundaries (samples drained, counters read), the run-time tables
 * (calling contexts, communicators, requests) and the lifecycle. */
#ifndef HCT_H
#define HCT_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "hca_clock.h"
#include "hca_defs.h"
#include "hct_config.h"

#define HCT_TLS __thread __attribute__((tls_model("initial-exec")))
#define HCT_HIDDEN __attribute__((visibility("hidden")))
#define HCT_MAX_THREADS 4096

typedef struct hct_ctr_thread hct_ctr_thread; /* hct_counters.c */
typedef struct hct_smp_thread hct_smp_thread; /* hct_sampling.c */

/* One OTF2 location: a thread of the traced process. */
typedef struct hct_thread {
    OTF2_EvtWriter *writer;
    uint64_t location_id;
    uint64_t last_ts;
    uint32_t index;           /* 0 = the thread that started tracing */
    volatile sig_atomic_t in_tool; /* >0 while inside a wrapper (samples dropped) */
    int mpi_depth;            /* nesting of MPI wrappers on this thread */
    int has_location;         /* an OTF2 location was created for it */
    uint64_t dropped_events;  /* events OTF2 refused (e.g. disk full) */
    void *scratch;            /* per-thread work space of the MPI wrappers */
    size_t scratch_size;
    hct_ctr_thread *ctr;      /* its counters, or NULL */
    hct_smp_thread *smp;      /* its sampling, or NULL */
    int extras;               /* counters or sampling: boundaries do more */
    int finished;             /* its counters and sampling were closed */
} hct_thread;

enum hct_mode { HCT_OFF = 0, HCT_SERIAL, HCT_MPI_PENDING, HCT_MPI };

typedef struct {
    _Atomic int active;       /* events are being recorded */
    enum hct_mode mode;
    int rank, size;
    hct_config cfg;
    char expdir[4096];
    char exe[256];
    OTF2_Archive *archive;
    uint64_t program_begin_ts;
    uint64_t first_ts;        /* timestamp when recording began */
    hct_thread *threads[HCT_MAX_THREADS];
    _Atomic uint32_t nthreads;
    hca_ref program_name_string;
    hca_defs defs;            /* local definitions, filled at finalize */
    char write_error[256];    /* first OTF2 error while writing, if any */
} hct_state;

extern hct_state hct HCT_HIDDEN;

/* ---- lifecycle (hct_core.c) ---- */
void hct_message(const char *fmt, ...) HCT_HIDDEN __attribute__((format(printf, 1, 2)));
/* A configuration problem: one line, printed by one rank of a job only. */
void hct_config_problem(const char *fmt, ...) HCT_HIDDEN __attribute__((format(printf, 1, 2)));
hct_thread *hct_thread_get(void) HCT_HIDDEN;
int hct_mpi_start(void) HCT_HIDDEN;   /* after PMPI_Init: open the job archive */
void hct_mpi_finish(void) HCT_HIDDEN; /* before PMPI_Finalize: write everything */

static inline uint64_t hct_timestamp(hct_thread *t)
{
    uint64_t now = hca_clock_now();
    if (now < t->last_ts)
        now = t->last_ts;
    t->last_ts = now;
    return now;
}

/* Checks an OTF2 result; remembers the first failure and counts the loss. */
void hct_otf2_check(hct_thread *t, OTF2_ErrorCode rc) HCT_HIDDEN;

/* ---- region boundaries (hct_boundary.c) ---- */
/* At load: which counters and which sampling this process records. */
void hct_extras_setup(void) HCT_HIDDEN;
/* On the thread itself, when it gets its location: counters and sampling. */
void hct_extras_start(hct_thread *t) HCT_HIDDEN;
/* A region boundary of t (t->in_tool > 0): pending samples are written first,
 * then the counter values at the returned time (not before `not_before`, when
 * non-zero); the caller writes its region event at that time. */
uint64_t hct_boundary(hct_thread *t, int enter, uint64_t not_before) HCT_HIDDEN;
static inline uint64_t hct_boundary_ts(hct_thread *t, int enter)
{
    return t->extras ? hct_boundary(t, enter, 0) : hct_timestamp(t);
}
/* The end of recording: every thread's sampling stopped; t's last samples and
 * sampling statistics written (`self`: called by t itself); resources released. */
void hct_extras_disarm_all(void) HCT_HIDDEN;
void hct_extras_finish(hct_thread *t, int self) HCT_HIDDEN;
void hct_extras_close(hct_thread *t) HCT_HIDDEN;
int hct_extras_wanted(void) HCT_HIDDEN; /* counters or sampling configured */

/* ---- counters (hct_counters.c) ---- */
void hct_counters_setup(void) HCT_HIDDEN;
/* The model and the PMU as archive properties (HCATRACE::MODEL, ...), on
 * rank 0's archive; other ranks pass NULL (their copies are freed). */
void hct_counters_properties(OTF2_Archive *archive) HCT_HIDDEN;
int hct_counters_nsets(void) HCT_HIDDEN;
hct_ctr_thread *hct_counters_thread_start(uint32_t start_set) HCT_HIDDEN;
/* Signal-safe: raw values of the thread's current set; returns their number. */
int hct_counters_read_signal(const hct_ctr_thread *c, int *set, uint64_t *raw) HCT_HIDDEN;
void hct_counters_write_sample(hct_thread *t, uint64_t ts, int set, const uint64_t *raw, int n) HCT_HIDDEN;
void hct_counters_boundary(hct_thread *t, uint64_t ts, int enter) HCT_HIDDEN;
/* The master location's totals, just before its ProgramEnd at ts. */
void hct_counters_final(hct_thread *t, uint64_t ts, int owner) HCT_HIDDEN;
void hct_counters_thread_close(hct_thread *t) HCT_HIDDEN;

/* ---- sampling (hct_sampling.c) ---- */
void hct_sampling_setup(void) HCT_HIDDEN;
hct_smp_thread *hct_sampling_thread_start(hct_thread *t) HCT_HIDDEN;
void hct_sampling_drain(hct_thread *t) HCT_HIDDEN;
void hct_sampling_disarm(hct_thread *t) HCT_HIDDEN;
void hct_sampling_finish(hct_thread *t, uint64_t ts, int self) HCT_HIDDEN;
void hct_sampling_thread_close(hct_thread *t) HCT_HIDDEN;
void hct_sampling_report(void) HCT_HIDDEN;

/* ---- call sites and calling contexts (hct_callsite.c) ---- */
/* The calling context of region `region_key` (a small integer naming an
 * instrumented region) called from `return_address`. Lock-free on hits. */
uint32_t hct_callsite_cc(uint32_t region_key, const void *return_address) HCT_HIDDEN;
void hct_callsite_reset(void) HCT_HIDDEN;
/* The calling context of a sampled frame: `address` (a leaf's own address, a
 * caller's return address - 1) called from `parent` (HCA_UNDEF: the root).
 * Takes a lock; never call it in a signal handler. HCA_UNDEF when full. */
uint32_t hct_sample_cc(uint32_t parent, uintptr_t address) HCT_HIDDEN;
/* Room for n sampled frames, allocated and touched now (at load). */
void hct_sample_cc_reserve(uint32_t n) HCT_HIDDEN;
/* At finalize: symbolize call sites and add regions and contexts to hct.defs.
 * region_def(key) adds the region definition of an instrumented region. */
int hct_callsite_define(hca_ref (*region_def)(hca_defs *d, uint32_t key)) HCT_HIDDEN;

/* ---- communicators and thread teams (hct_comms.c) ---- */
/* A communicator: the next local ID (takes ownership of members, malloc'ed). */
uint32_t hct_comms_add(const char *name, uint32_t parent, uint64_t key, uint32_t nmembers, uint32_t *members) HCT_HIDDEN;
/* An OpenMP thread team: *id gets its local ID; the returned bitmap (one bit
 * per thread index) collects its members. NULL when memory ran out. */
_Atomic uint64_t *hct_comms_add_team(const char *name, uint64_t key, uint32_t *id) HCT_HIDDEN;
/* At the end: every communicator and team becomes a definition of hct.defs. */
int hct_comms_define(void) HCT_HIDDEN;

/* ---- symbolization (hct_symbols.c) ---- */
typedef struct {
    char function[256];
    char file[512];
    uint32_t line, function_line;
} hct_symbol;
/* Resolves code addresses of this process to function, file and line. */
typedef struct hct_symbolizer hct_symbolizer;
/* separate_debuginfo: also look for debug information in separate files
 * (/usr/lib/debug, distribution -dbg packages); 0: only what the modules
 * themselves hold (cheaper: no decompression of large separate files). */
hct_symbolizer *hct_symbolizer_open(int separate_debuginfo) HCT_HIDDEN;
void hct_symbolize(hct_symbolizer *s, uintptr_t address, hct_symbol *out) HCT_HIDDEN;
void hct_symbolizer_close(hct_symbolizer *s) HCT_HIDDEN;

#endif

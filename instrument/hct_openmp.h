/* hct_openmp.h: OpenMP recording shared by the two runtime adapters (GCC's
 * libgomp through wrappers, hct_openmp_gomp.c; LLVM's libomp through OMPT,
 * hct_openmp_ompt.c): region keys of OpenMP constructs, the fork/join records
 * of a team's master, the share of each thread, thread teams as communicators
 * (docs/openmp.md). */
#ifndef HCT_OPENMP_H
#define HCT_OPENMP_H

#include <stdint.h>

#include "hct.h"
#include "hct_omp_sync.h"

#define HCT_OMP_KEY_BASE 0x20000u                     /* region keys of OpenMP constructs */
#define HCT_OMP_KEY_BARRIER (HCT_OMP_KEY_BASE + 0)    /* explicit barrier */
#define HCT_OMP_KEY_IBARRIER (HCT_OMP_KEY_BASE + 1)   /* implicit barrier (end of a worksharing construct) */
#define HCT_OMP_KEY_CRITICAL (HCT_OMP_KEY_BASE + 2)   /* critical section, waiting included */
#define HCT_OMP_KEY_LOOP (HCT_OMP_KEY_BASE + 3)       /* worksharing loop (OMPT) */
#define HCT_OMP_KEY_SECTIONS (HCT_OMP_KEY_BASE + 4)   /* sections (OMPT) */
#define HCT_OMP_KEY_SINGLE (HCT_OMP_KEY_BASE + 5)     /* single (OMPT) */
#define HCT_OMP_KEY_TASKWAIT (HCT_OMP_KEY_BASE + 6)   /* taskwait (OMPT) */
#define HCT_OMP_KEY_FN_BASE (HCT_OMP_KEY_BASE + 0x100) /* + index of an outlined function */
#define HCT_OMP_KEY_END (HCT_OMP_KEY_FN_BASE + 0x10000)

/* Which adapter records this process: the first to claim it (libomp's OMPT
 * takes it at its initialization, before any region; the GOMP wrappers then
 * only pass calls through). */
enum hct_omp_adapter { HCT_OMP_NONE = 0, HCT_OMP_GOMP, HCT_OMP_OMPT };
int hct_omp_claim(enum hct_omp_adapter a) HCT_HIDDEN; /* 1: a records */
enum hct_omp_adapter hct_omp_adapter_of(void) HCT_HIDDEN;

/* What the GOMP wrappers know and libomp's OMPT callbacks do not, when OMPT
 * records (a GCC-built program on libomp, libhcatrace.so first in LD_PRELOAD):
 * set for the time of the wrapped call into libomp, which would report a code
 * address inside the wrapper. fn: the outlined function of a parallel region
 * (taken by its parallel_begin); site: the program's call site. */
typedef struct {
    const void *fn, *site;
} hct_omp_hint;
extern HCT_TLS hct_omp_hint hct_omp_hints HCT_HIDDEN;

/* The region key of a parallel region: per outlined function (`fn`), or, when
 * unknown, per code address of the construct (`codeptr`, its caller's). */
uint32_t hct_omp_parallel_key(const void *fn, const void *codeptr) HCT_HIDDEN;
/* Region definition of an OpenMP key (symbolized at the first call). */
hca_ref hct_omp_region_def(hca_defs *d, uint32_t key) HCT_HIDDEN;

/* A parallel region on its master: ThreadFork and ThreadJoin. */
typedef struct {
    hct_thread *t;
    uint32_t cc;     /* calling context of every thread's share */
    uint32_t master; /* thread index of the master */
    uint32_t level;  /* nesting level of the new team (1: outermost) */
    hct_ctx ctx;     /* cc's path: the master's call path, then the region */
    int ctx_later;   /* cc and ctx not found yet: a kept-back team of one (fork_context, hct_openmp.c) */
    int nframes;     /* the master's physical stack at the fork, root first (hct_path_unwind); */
    uintptr_t frames[HCT_PATH_FRAMES]; /* nframes -1: found only if needed (fork_frames, hct_openmp.c) */
    /* the call into the runtime whose frame outlives the team (GOMP_parallel):
     * the program's call site, the call's return address and its caller's
     * stack pointer (as for hct_path_unwind_from); cfa NULL: unknown */
    const void *site, *ret, *cfa;
    /* thinning (HCATRACE_THIN): the master decides per instance for the whole
     * team, from its own count of the key; kept back (HCT_THIN_LAZY), the
     * fork and every share are written only where needed (hct_openmp.c) */
    uint32_t key;
    int mode;            /* enum hct_thin_mode */
    int held;            /* the ThreadFork kept back, not written yet */
    uint32_t requested;  /* its thread count */
    uint64_t ts;         /* its time: kept back, in ticks (hct_ticks.h) */
    uint64_t samples;    /* the master's samples taken then */
    _Atomic int keep;    /* a thread of the team wrote its share: the fork and join are written */
    /* written in full and probed for the cost rule (hct_thin_probing): the
     * master's time in the tracer for it (fork, its share, join), the end
     * of the fork's part, the share's part (within the region's time); the
     * longest share of the team from its begin's end to its end's start
     * (+ 1: 0 when no share said), the region's duration: its fork to its
     * join holds the wait for threads that were not on a CPU, which a loaded
     * machine makes milliseconds long */
    hct_thin_slot *slot;
    int probe;
    uint64_t probe_t, probe_cost, probe_share;
    _Atomic uint64_t probe_span;
    hct_omp_sync sync;   /* the team's barriers: the tool time its threads wait for (hct_omp_sync.h) */
} hct_omp_fork;
/* Returns 0 (nothing recorded) when this thread does not trace. */
/* ret, cfa: the runtime call's return address and caller's stack pointer
 * when its frame outlives the team's shares (GOMP_parallel), else NULL: a
 * kept-back team of one then finds the master's call path only if it is
 * written. */
int hct_omp_fork_begin(hct_omp_fork *f, uint32_t key, const void *return_address, const void *ret,
                       const void *cfa, uint32_t requested) HCT_HIDDEN;
void hct_omp_fork_end(hct_omp_fork *f) HCT_HIDDEN;

/* One thread's share of a parallel region: ThreadTeamBegin, the region's
 * enter ... its leave, ThreadTeamEnd. */
typedef struct {
    hct_thread *t;
    uint32_t cc, team;
    int worker; /* not the team's master: a thread of the runtime's pool */
    /* kept back (the fork's mode HCT_THIN_LAZY): its records written, and
     * its context entered, only if needed (a sample, something written nests,
     * it lasts HCATRACE_THIN's threshold) */
    int lazy;
    uint32_t pend;       /* HCT_CC_PENDING until written; then its context (HCA_UNDEF: could not be) */
    hct_omp_fork *fork;
    /* kept back: where its stack is found if it is written (kept_share_stack,
     * hct_openmp.c): the caller (NULL: its stack copied at its begin) and
     * whether it nests in another share of the thread */
    const struct hct_omp_caller *caller;
    int nested;
    const hct_ctx *fork_ctx; /* kept back: the fork's context (cc): the fork's, or ctx */
    hct_ctx ctx;         /* kept back without a caller: the fork's context, copied */
    uint64_t probe_t;    /* its fork probed: the end of its begin (0: not probed) */
} hct_omp_share;
/* Where a share is called from: the caller's return address and the calling
 * function's frame. On a worker of the runtime's pool (not the master) the
 * frames below that caller are the thread's start, the same for its whole
 * life, so the same pair is the same stack: unwound once per thread, not
 * once per region. On the master, `fork` (else NULL) says that the runtime
 * called the share from the fork's own call (`ret` in the runtime's entry
 * the program called at the fork's return address): its stack is the fork's
 * and that call, not unwound again. */
typedef struct hct_omp_caller {
    const void *ret, *frame;
    const hct_omp_fork *fork;
} hct_omp_caller;
/* The team is named by its master's thread index, its level and its size;
 * num: the calling thread's number in the team (omp_get_thread_num: its
 * slot for the team's barriers, hct_omp_sync.h);
 * fork: the master's (its context, hct_omp_fork.ctx, entered by every
 * thread; its thinning decision; the team's barriers, hct_omp_fork.sync),
 * read while the region runs;
 * caller: NULL when unknown (the thread's stack unwound at every share);
 * given (the GOMP adapter's), it and the fork stay valid until the share
 * ends (the master's join waits for the team), so a kept-back share reads
 * its stack and the fork's context only if it is written. */
int hct_omp_share_begin(hct_omp_share *s, uint32_t master, uint32_t level, uint32_t num, uint32_t team_size,
                        hct_omp_fork *fork, const hct_omp_caller *caller) HCT_HIDDEN;
void hct_omp_share_end(hct_omp_share *s) HCT_HIDDEN;

/* A construct region (barrier, critical...) on the calling thread. */
typedef struct {
    hct_thread *t;
    uint32_t cc;
    int mode;            /* enum hct_thin_mode: written in full, kept back, filtered out */
    int barrier;         /* a barrier of the thread's team (hct_omp_sync.h) */
    uint64_t t0;         /* filtered out: its enter's time in ticks (hct_ticks.h); probed: its enter's end */
    hct_thin_slot *slot; /* filtered out or probed: its key's statistics */
    uint64_t cost;       /* probed (hct_thin_probing): the tracer's time in its enter */
} hct_omp_region;
/* return_address: the call site (as for hct_path_unwind); ret and cfa: the
 * entry's own return address and its caller's stack pointer
 * (__builtin_dwarf_cfa() of the entry the program called, the caller's frame
 * running until the leave), or cfa NULL: the call path of a kept-back
 * instance is then unwound at its enter, not only if it is written
 * (hct_thin_defer_site). */
int hct_omp_region_enter(hct_omp_region *r, uint32_t key, const void *return_address, const void *ret,
                         const void *cfa) HCT_HIDDEN;
void hct_omp_region_leave(hct_omp_region *r) HCT_HIDDEN;

#endif

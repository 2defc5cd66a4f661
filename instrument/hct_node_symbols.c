/* hct_node_symbols.c: the node's shared table of symbolized code addresses
 * and the requests to its owner (see hct_node_symbols.h).
 *
 * The file (NODE_BYTES, sparse in tmpfs: only what is written takes memory)
 * is a header, a hash table of NSLOTS slots, NREQ request slots and an arena
 * of answers. All-zero is an empty table, so a process that creates the
 * file has nothing to initialize and no process waits for another to. An
 * answer is appended to the arena (its space taken with one atomic add),
 * written whole, then its offset stored in a free slot with a release
 * compare-and-swap; readers load slots with acquire. A process killed while
 * it writes leaves arena space no slot points to. Slots are probed linearly
 * from the hash of (file, offset), at most PROBES of them. */
#include "hct_node_symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NODE_VERSION 1u
#define NODE_BYTES ((size_t)32 << 20)
#define NSLOTS 65536u
#define PROBES 64u
#define NREQ 64u
/* a request checks whether the owner is a zombie only after waiting this long */
#define ALIVE_AFTER_NS 1000000u

enum { REQ_FREE, REQ_WRITING, REQ_POSTED, REQ_TAKEN, REQ_DONE };

typedef struct {
    _Atomic uint32_t version; /* 0 in a new file: NODE_VERSION set by the first */
    _Atomic int32_t owner;    /* the pid of the process that does the libdw work */
    _Atomic uint32_t posted;  /* requests posted so far: the owner's futex */
    uint32_t pad;
    _Atomic uint64_t used; /* bytes of the arena taken */
} node_header;

typedef struct {
    _Atomic uint32_t state;
    int32_t pid;
    uint64_t file, offset;
} node_request;

typedef struct {
    uint64_t file, offset;
    uint32_t bytes; /* the whole record's, a multiple of 8 */
    uint16_t nkeys, nnames;
    /* nkeys keys, then nnames names (name_head + its three strings) */
} node_record;

typedef struct {
    uint32_t line, function_line;
    uint16_t len[3]; /* function, signature, file: no terminating zero */
    uint16_t pad;
} name_head;

#define SLOTS_AT 64u
#define REQ_AT (SLOTS_AT + NSLOTS * 8u)
#define ARENA_AT (REQ_AT + NREQ * (uint32_t)sizeof(node_request))

static unsigned char *base;
static _Atomic uint64_t found, asked, published;

static node_header *header(void)
{
    return (node_header *)base;
}

static _Atomic uint64_t *slots(void)
{
    return (_Atomic uint64_t *)(base + SLOTS_AT);
}

static node_request *requests(void)
{
    return (node_request *)(base + REQ_AT);
}

int hct_node_symbols_path(char *buf, size_t n)
{
    const char *job = getenv("PMIX_NAMESPACE");
    if (!job || !*job)
        job = getenv("OMPI_MCA_ess_base_jobid");
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (!local)
        local = getenv("MPI_LOCALNRANKS");
    if (!job || !*job || !local || atoi(local) < 2)
        return -1;
    int len = snprintf(buf, n, "/dev/shm/hcatrace-%u-", (unsigned)getuid());
    if (len < 0 || (size_t)len >= n)
        return -1;
    /* the job's name with only [A-Za-z0-9._-] */
    size_t at = (size_t)len;
    for (const char *c = job; *c && at + 1 < n; c++, at++) {
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
                 *c == '-' || *c == '_';
        buf[at] = ok ? *c : '_';
    }
    buf[at] = '\0';
    return 0;
}

int hct_node_symbols_attach(const char *path)
{
    if (base)
        return 0;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    struct stat st;
    /* only a file of this user's, not another's to feed it names */
    if (fstat(fd, &st) != 0 || st.st_uid != getuid() || (st.st_mode & 077) || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    off_t size = st.st_size;
    if (size != (off_t)NODE_BYTES && (size > (off_t)NODE_BYTES || ftruncate(fd, (off_t)NODE_BYTES) != 0)) {
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, NODE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    uint32_t none = 0;
    node_header *h = p;
    if (!atomic_compare_exchange_strong(&h->version, &none, NODE_VERSION) && none != NODE_VERSION) {
        munmap(p, NODE_BYTES); /* another version's file */
        return -1;
    }
    base = p;
    return 0;
}

int hct_node_symbols_attached(void)
{
    return base != NULL;
}

void hct_node_symbols_unlink(const char *path)
{
    unlink(path);
}

static uint64_t slot_hash(uint64_t file, uint64_t offset)
{
    uint64_t h = (file ^ (offset * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

/* The record at arena offset `at`, if it lies whole in the file. */
static const node_record *record_at(uint64_t at)
{
    if (at < ARENA_AT || at > NODE_BYTES - sizeof(node_record) || at % 8)
        return NULL;
    const node_record *r = (const node_record *)(base + at);
    if (r->bytes < sizeof(*r) || r->bytes > NODE_BYTES - at || r->nkeys > HCT_INLINE_MAX ||
        r->nnames > HCT_INLINE_MAX)
        return NULL;
    return r;
}

static void copy_names(const node_record *r, hct_symbol *names, int max)
{
    const unsigned char *p = (const unsigned char *)(r + 1) + r->nkeys * sizeof(uint64_t);
    const unsigned char *end = (const unsigned char *)r + r->bytes;
    for (int i = 0; i < r->nnames && i < max; i++) {
        name_head h;
        if (p + sizeof(h) > end)
            break;
        memcpy(&h, p, sizeof(h));
        p += sizeof(h);
        hct_symbol *o = &names[i];
        memset(o, 0, sizeof(*o));
        o->line = h.line;
        o->function_line = h.function_line;
        char *dst[3] = { o->function, o->signature, o->file };
        const size_t cap[3] = { sizeof(o->function), sizeof(o->signature), sizeof(o->file) };
        for (int k = 0; k < 3; k++) {
            size_t len = h.len[k];
            if (p + len > end || len >= cap[k])
                return;
            memcpy(dst[k], p, len);
            dst[k][len] = '\0';
            p += len;
        }
    }
}

static int find(uint64_t file, uint64_t offset, hct_node_answer *a, hct_symbol *names, int max)
{
    if (!base)
        return 0;
    uint64_t h = slot_hash(file, offset);
    for (uint32_t i = 0; i < PROBES; i++) {
        uint64_t at = atomic_load_explicit(&slots()[(h + i) % NSLOTS], memory_order_acquire);
        if (at == 0)
            return 0;
        const node_record *r = record_at(at);
        if (!r || r->file != file || r->offset != offset)
            continue;
        a->nkeys = r->nkeys;
        a->nnames = r->nnames < max ? r->nnames : max;
        memcpy(a->keys, r + 1, (size_t)r->nkeys * sizeof(uint64_t));
        if (names && max > 0)
            copy_names(r, names, max);
        return 1;
    }
    return 0;
}

int hct_node_symbols_find(uint64_t file, uint64_t offset, hct_node_answer *a, hct_symbol *names, int max)
{
    int hit = find(file, offset, a, names, max);
    if (hit)
        atomic_fetch_add_explicit(&found, 1, memory_order_relaxed);
    return hit;
}

int hct_node_symbols_publish(uint64_t file, uint64_t offset, const uint64_t *keys, int nkeys,
                             const hct_symbol *names, int nnames)
{
    if (!base || nkeys < 1 || nkeys > (int)HCT_INLINE_MAX || nnames < 1 || nnames > (int)HCT_INLINE_MAX)
        return -1;
    size_t bytes = sizeof(node_record) + (size_t)nkeys * sizeof(uint64_t);
    for (int i = 0; i < nnames; i++)
        bytes += sizeof(name_head) + strlen(names[i].function) + strlen(names[i].signature) +
                 strlen(names[i].file);
    bytes = (bytes + 7) & ~(size_t)7;
    uint64_t at = ARENA_AT + atomic_fetch_add_explicit(&header()->used, bytes, memory_order_relaxed);
    if (at + bytes > NODE_BYTES)
        return -1;
    node_record *r = (node_record *)(base + at);
    *r = (node_record){ file, offset, (uint32_t)bytes, (uint16_t)nkeys, (uint16_t)nnames };
    unsigned char *p = (unsigned char *)(r + 1);
    memcpy(p, keys, (size_t)nkeys * sizeof(uint64_t));
    p += (size_t)nkeys * sizeof(uint64_t);
    for (int i = 0; i < nnames; i++) {
        const char *src[3] = { names[i].function, names[i].signature, names[i].file };
        name_head h = { names[i].line, names[i].function_line, { 0 }, 0 };
        for (int k = 0; k < 3; k++)
            h.len[k] = (uint16_t)strlen(src[k]);
        memcpy(p, &h, sizeof(h));
        p += sizeof(h);
        for (int k = 0; k < 3; k++) {
            memcpy(p, src[k], h.len[k]);
            p += h.len[k];
        }
    }
    uint64_t hash = slot_hash(file, offset);
    for (uint32_t i = 0; i < PROBES; i++) {
        _Atomic uint64_t *slot = &slots()[(hash + i) % NSLOTS];
        uint64_t seen = 0;
        if (atomic_compare_exchange_strong_explicit(slot, &seen, at, memory_order_release, memory_order_acquire)) {
            atomic_fetch_add_explicit(&published, 1, memory_order_relaxed);
            return 0;
        }
        const node_record *o = record_at(seen);
        if (o && o->file == file && o->offset == offset)
            return 0; /* another process's answer came first: the same */
    }
    return -1;
}

/* Is there a process pid (a zombie too)? One system call. */
static int exists(int32_t pid)
{
    return pid > 0 && !(kill(pid, 0) != 0 && errno == ESRCH);
}

/* Is the process there, and not a zombie (ended, not yet reaped: a rank
 * that called MPI_Abort, while its peers are being ended)? Four system
 * calls and a read of /proc. */
static int alive(int32_t pid)
{
    if (!exists(pid))
        return 0;
    char path[64], stat[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1; /* no /proc: as kill says */
    ssize_t n = read(fd, stat, sizeof(stat) - 1);
    close(fd);
    if (n <= 0)
        return 1;
    stat[n] = '\0';
    const char *state = strrchr(stat, ')'); /* "pid (comm) S ...": comm may hold anything */
    return !(state && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X'));
}

int hct_node_symbols_claim(void)
{
    if (!base)
        return 0;
    int32_t me = (int32_t)getpid(), owner = atomic_load(&header()->owner);
    while (owner != me) {
        if (owner != 0 && alive(owner))
            return 0;
        if (atomic_compare_exchange_strong(&header()->owner, &owner, me))
            break;
    }
    return 1;
}

static long futex(_Atomic uint32_t *word, int op, uint32_t value)
{
    return syscall(SYS_futex, (uint32_t *)word, op, value, NULL, NULL, 0);
}

int hct_node_symbols_request(uint64_t file, uint64_t offset, uint64_t limit_ns)
{
    if (!base)
        return -1;
    int32_t owner = atomic_load(&header()->owner);
    if (owner == 0 || owner == (int32_t)getpid() || !exists(owner))
        return -1;
    node_request *q = NULL;
    for (uint32_t i = 0; i < NREQ && !q; i++) {
        uint32_t free_state = REQ_FREE;
        if (atomic_compare_exchange_strong(&requests()[i].state, &free_state, REQ_WRITING))
            q = &requests()[i];
    }
    if (!q)
        return 0; /* all taken: this one not asked */
    q->pid = (int32_t)getpid();
    q->file = file;
    q->offset = offset;
    atomic_store_explicit(&q->state, REQ_POSTED, memory_order_release);
    atomic_fetch_add(&header()->posted, 1);
    futex(&header()->posted, FUTEX_WAKE, 1);
    long sleep_ns = 10000;
    uint64_t waited = 0;
    for (;;) {
        uint32_t state = atomic_load_explicit(&q->state, memory_order_acquire);
        if (state == REQ_DONE) {
            atomic_store(&q->state, REQ_FREE);
            break;
        }
        /* whether the owner is a zombie: only once the answer is late (an
         * alive() at every sleep was 4 system calls and a read of /proc,
         * 2.5-3.8 per request: LULESH -s 8 -i 40 at 8 ranks, 430-1,030
         * kill()s and 400-1,070 opens of /proc per job, now about one kill
         * per request and no open) */
        if (waited > limit_ns || atomic_load(&header()->owner) != owner ||
            (waited >= ALIVE_AFTER_NS && !alive(owner))) {
            uint32_t posted = REQ_POSTED;
            /* not taken: withdrawn; taken by an owner now gone: left as it is */
            if (atomic_compare_exchange_strong(&q->state, &posted, REQ_FREE) || !alive(owner))
                return -1;
        }
        struct timespec ts = { 0, sleep_ns };
        nanosleep(&ts, NULL);
        waited += (uint64_t)sleep_ns;
        if (sleep_ns < 1000000)
            sleep_ns *= 2;
    }
    hct_node_answer a;
    if (!find(file, offset, &a, NULL, 0))
        return 0;
    atomic_fetch_add_explicit(&asked, 1, memory_order_relaxed);
    return 1;
}

void hct_node_symbols_serve(void (*publish)(uint64_t file, uint64_t offset, void *arg), void *arg)
{
    for (;;) {
        uint32_t seen = atomic_load(&header()->posted);
        for (uint32_t i = 0; i < NREQ; i++) {
            node_request *q = &requests()[i];
            uint32_t posted = REQ_POSTED;
            if (!atomic_compare_exchange_strong(&q->state, &posted, REQ_TAKEN))
                continue;
            publish(q->file, q->offset, arg);
            atomic_store_explicit(&q->state, REQ_DONE, memory_order_release);
        }
        if (atomic_load(&header()->posted) == seen)
            futex(&header()->posted, FUTEX_WAIT, seen);
    }
}

void hct_node_symbols_stats(hct_node_stats *out)
{
    out->found = atomic_load(&found);
    out->asked = atomic_load(&asked);
    out->published = atomic_load(&published);
}

/* test_path.c: unit tests of a thread's calling context (instrument/hct_path.c)
 * against a model tree: a region's node under its call path, samples under the
 * open region from the first frame off the region's own stack, a marker's
 * caller seen again at another line, nested regions, an OpenMP team's context
 * entered from another thread, frames in inlined code as several nodes, OTF2's
 * unwind distance of each event (counted in nodes), the state
 * kept usable when the table is full, the thread's cache of nodes (recurring
 * call sites and long inline chains not asked of the process's table again),
 * a frame's chain cut by another thread's context, the contexts of recurring
 * forks and MPI calls found again (instrument/hct_path_memo.c),
 * the stack unwound at a call, and an enter's stack unwound later, while its
 * caller runs (hct_path_unwind_from). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hca_defs.h"
#include "hct_callsite.h"
#include "hct_path_memo.h"
#include "hct_path.h"

/* ---- the model tree in place of hct_callsite.c ---- */
typedef struct {
    uint32_t parent;
    uintptr_t node; /* address, or key | 1 << 62 for a region */
} model_node;
static model_node tree[256];
static uint32_t ntree, capacity = 256;
static unsigned lookups; /* calls into the process's table (hct_sample_cc, hct_region_cc) */

static uint32_t model_child(uint32_t parent, uintptr_t node)
{
    for (uint32_t i = 0; i < ntree; i++)
        if (tree[i].parent == parent && tree[i].node == node)
            return i;
    if (ntree >= capacity)
        return HCA_UNDEF;
    tree[ntree] = (model_node){ parent, node };
    return ntree++;
}

#define DEEP 0x2000 /* a frame in code inlined 10 deep (LULESH has such chains) */
#define DEEP_CHAIN 10

/* an upper-case frame lies in inlined code: the outer function's node 'o'
 * (the line where it calls the inlined one, the same for every such frame),
 * then the frame's own */
uint32_t hct_sample_cc(uint32_t parent, uintptr_t address, uint32_t *nodes)
{
    uint32_t n = 0;
    lookups++;
    if (address == DEEP) {
        for (; n < DEEP_CHAIN; n++) {
            nodes[n] = model_child(parent, DEEP + n);
            if (nodes[n] == HCA_UNDEF)
                return 0;
            parent = nodes[n];
        }
        return n;
    }
    if (address >= 'A' && address <= 'Z') {
        nodes[n] = model_child(parent, 'o');
        if (nodes[n] == HCA_UNDEF)
            return 0;
        parent = nodes[n++];
    }
    nodes[n] = model_child(parent, address);
    return nodes[n] == HCA_UNDEF ? 0 : n + 1;
}

uint32_t hct_region_cc(uint32_t parent, uint32_t region_key)
{
    lookups++;
    return model_child(parent, (uintptr_t)region_key | (uintptr_t)1 << 62);
}

/* the nodes of cc's path, root first, as "a,b,K7" (regions as K<key>) */
static const char *path_of(uint32_t cc)
{
    static char buf[512];
    uint32_t nodes[64];
    int n = 0;
    for (uint32_t c = cc; c != HCA_UNDEF && n < 64; c = tree[c].parent)
        nodes[n++] = c;
    buf[0] = 0;
    for (int i = n - 1; i >= 0; i--) {
        uintptr_t v = tree[nodes[i]].node;
        size_t len = strlen(buf);
        if (v & (uintptr_t)1 << 62)
            snprintf(buf + len, sizeof(buf) - len, "%sK%lu", len ? "," : "", (unsigned long)(v & 0xffff));
        else
            snprintf(buf + len, sizeof(buf) - len, "%s%c", len ? "," : "", (char)v);
    }
    return buf;
}

static hct_path P;

static int setup(void **state)
{
    (void)state;
    memset(&P, 0, sizeof(P));
    ntree = 0;
    capacity = 256;
    lookups = 0;
    return 0;
}

/* frames named by letters: their "addresses" are the characters */
static int frames_of(const char *s, uintptr_t *f)
{
    int n = 0;
    for (; *s; s++)
        f[n++] = (uintptr_t)(unsigned char)*s;
    return n;
}

static uint32_t enter(uint32_t key, const char *stack, uint32_t *ud)
{
    uintptr_t f[HCT_PATH_FRAMES];
    return hct_path_enter(&P, key, f, frames_of(stack, f), ud);
}

static uint32_t sample(const char *stack, uint32_t *ud)
{
    uintptr_t f[HCT_PATH_FRAMES];
    return hct_path_sample(&P, f, frames_of(stack, f), ud);
}

static void region_under_its_call_path(void **state)
{
    (void)state;
    uint32_t ud = 0;
    uint32_t cc = sample("ab", &ud);
    assert_string_equal(path_of(cc), "a,b");
    assert_int_equal(ud, 3); /* nothing before: both new, then the undefined root */
    cc = enter(7, "ac", &ud);
    assert_string_equal(path_of(cc), "a,c,K7");
    assert_int_equal(ud, 3); /* c and the region new, a made progress */
    /* an MPI library's frames under the call's node */
    cc = sample("acxy", &ud);
    assert_string_equal(path_of(cc), "a,c,K7,x,y");
    assert_int_equal(ud, 3);
    cc = sample("acxz", &ud);
    assert_string_equal(path_of(cc), "a,c,K7,x,z");
    assert_int_equal(ud, 2);
    assert_int_equal(sample("acxz", &ud), cc);
    assert_int_equal(ud, 1); /* the same path: the leaf made progress */
    hct_path_leave(&P);
    assert_int_equal(P.now.depth, 2); /* the region's parent */
    cc = sample("ad", &ud);
    assert_string_equal(path_of(cc), "a,d");
    assert_int_equal(ud, 2);
    /* the same call again: the same node */
    uint32_t again = enter(7, "ac", &ud);
    assert_string_equal(path_of(again), "a,c,K7");
    assert_int_equal(ud, 3);
}

static void marker_then_nested_call(void **state)
{
    (void)state;
    uint32_t ud = 0;
    uint32_t m = enter(1, "am", &ud); /* a marker begun at line m of a */
    assert_string_equal(path_of(m), "a,m,K1");
    assert_int_equal(ud, 4);
    /* the code between begin and end: a at another line, then f */
    uint32_t cc = sample("anf", &ud);
    assert_string_equal(path_of(cc), "a,m,K1,n,f");
    assert_int_equal(ud, 3);
    /* an MPI call inside the marker, from g */
    cc = enter(7, "ang", &ud);
    assert_string_equal(path_of(cc), "a,m,K1,n,g,K7");
    assert_int_equal(ud, 3); /* g and the call new; n made progress */
    cc = sample("angx", &ud);
    assert_string_equal(path_of(cc), "a,m,K1,n,g,K7,x");
    assert_int_equal(ud, 2);
    hct_path_leave(&P);
    cc = sample("anf", &ud);
    assert_string_equal(path_of(cc), "a,m,K1,n,f");
    assert_int_equal(ud, 2);
    /* a sample off the marker's own stack still hangs under its node */
    cc = sample("bq", &ud);
    assert_string_equal(path_of(cc), "a,m,K1,b,q");
    assert_int_equal(ud, 3);
    hct_path_leave(&P);
    assert_int_equal(P.now.depth, 2);
    assert_int_equal(P.nopen, 0);
}

static void team_context_from_another_thread(void **state)
{
    (void)state;
    /* the master computes the context at the fork without entering it */
    hct_ctx team;
    uintptr_t f[HCT_PATH_FRAMES];
    uint32_t cc = hct_path_peek(&P, 9, f, frames_of("ab", f), &team);
    assert_string_equal(path_of(cc), "a,b,K9");
    assert_int_equal(team.depth, 3);
    assert_int_equal(P.now.depth, 0); /* not entered */
    assert_int_equal(P.nopen, 0);
    /* a worker with a stack of its own enters it */
    hct_path worker;
    memset(&worker, 0, sizeof(worker));
    uint32_t ud = 0;
    assert_int_equal(hct_path_enter_ctx(&worker, &team, f, frames_of("st", f), &ud), cc);
    assert_int_equal(ud, 4); /* all new on this location */
    /* its samples leave the region's path below the runtime's frames */
    uint32_t s = hct_path_sample(&worker, f, frames_of("stow", f), &ud);
    assert_string_equal(path_of(s), "a,b,K9,o,w");
    assert_int_equal(ud, 3);
    hct_path_leave(&worker);
    assert_int_equal(worker.now.depth, 2);
}

static void inline_chains_are_nodes(void **state)
{
    (void)state;
    uint32_t ud = 0;
    uint32_t cc = sample("aP", &ud);
    assert_string_equal(path_of(cc), "a,o,P");
    assert_int_equal(ud, 4);
    /* another address of the same outer function's line: its node is shared */
    cc = sample("aQ", &ud);
    assert_string_equal(path_of(cc), "a,o,Q");
    assert_int_equal(ud, 2);
    /* a region entered from inlined code: under the whole chain */
    cc = enter(5, "aQ", &ud);
    assert_string_equal(path_of(cc), "a,o,Q,K5");
    assert_int_equal(ud, 2);
    cc = sample("aQxR", &ud);
    assert_string_equal(path_of(cc), "a,o,Q,K5,x,o,R");
    assert_int_equal(ud, 4);
    hct_path_leave(&P);
    assert_int_equal(P.now.depth, 3);
    cc = sample("bP", &ud);
    assert_string_equal(path_of(cc), "b,o,P");
    assert_int_equal(ud, 4);
}

static void full_table_keeps_a_valid_state(void **state)
{
    (void)state;
    uint32_t ud = 0;
    sample("abc", &ud);
    capacity = ntree; /* nothing new from now on */
    assert_int_equal(sample("abd", &ud), HCA_UNDEF);
    assert_int_equal(enter(3, "abe", &ud), HCA_UNDEF);
    assert_int_equal(P.nopen, 0);
    capacity = 256;
    /* the next event's distance is counted against a prefix of what was
     * written last (a, b, c): never too small */
    uint32_t cc = sample("abc", &ud);
    assert_string_equal(path_of(cc), "a,b,c");
    assert_true(ud >= 1 && ud <= 2);
}

/* A hydro code's time step: 60 parallel loops, each its own call site under
 * the same caller, one of them in code inlined 10 deep. After the first step
 * every node comes from the thread's cache: none is asked of the process's
 * table (a lock and a hash lookup per node). A direct-mapped cache of 256
 * entries holding chains of up to 6 nodes asked again at every step. */
static void recurring_sites_from_the_cache(void **state)
{
    (void)state;
    uintptr_t f[HCT_PATH_FRAMES];
    uint32_t ud = 0, first[60];
    for (int step = 0; step < 3; step++) {
        if (step == 1)
            lookups = 0;
        for (uint32_t k = 0; k < 60; k++) {
            int n = frames_of("ab", f);
            f[n++] = k == 30 ? DEEP : 0x100 + k;
            uint32_t cc = hct_path_enter(&P, 100 + k, f, n, &ud);
            assert_int_not_equal(cc, HCA_UNDEF);
            if (step == 0)
                first[k] = cc;
            assert_int_equal(cc, first[k]); /* the same node every step */
            hct_path_leave(&P);
        }
    }
    assert_int_equal(lookups, 0);
    assert_int_equal(ntree, 2 + 59 + DEEP_CHAIN + 60);
}

/* A frame's inline chain cut by another thread's context: the master's
 * path holds a frame whose chain (o, A) only the first node of a team's
 * context shares (o, B); entering that context replaces the chain's end.
 * The next path from that frame is its own chain again: the walk's shortcut
 * over the thread's path copied a whole chain when its first node's frame
 * matched (LULESH at 2 threads: 108 of 80,000 forks under the wrong line). */
static void chain_cut_by_a_team_context(void **state)
{
    (void)state;
    uintptr_t f[HCT_PATH_FRAMES];
    uint32_t ud = 0;
    hct_ctx team;
    assert_string_equal(path_of(enter(1, "aA", &ud)), "a,o,A,K1");
    hct_path_leave(&P);
    hct_path other;
    memset(&other, 0, sizeof(other));
    assert_string_equal(path_of(hct_path_peek(&other, 2, f, frames_of("aB", f), &team)), "a,o,B,K2");
    assert_int_not_equal(hct_path_enter_ctx(&P, &team, f, frames_of("st", f), &ud), HCA_UNDEF);
    hct_path_leave(&P);
    assert_string_equal(path_of(hct_path_peek(&P, 1, f, frames_of("aA", f), &team)), "a,o,A,K1");
    assert_string_equal(path_of(enter(1, "aA", &ud)), "a,o,A,K1");
}

static hct_path_memo M; /* a thread's memo of its forks' contexts */

/* One fork's context from the memo, checked against hct_path_peek (every
 * node); *asked: whether the memo asked the process's table. */
static uint32_t fork_ctx(uint32_t key, const uintptr_t *f, int n, int *asked)
{
    hct_ctx got, want;
    unsigned before = lookups;
    uint32_t cc = hct_path_memo_peek(&M, &P, key, f, n, &got);
    *asked = lookups != before;
    assert_int_equal(hct_path_peek(&P, key, f, n, &want), cc);
    assert_int_equal(got.depth, want.depth);
    assert_memory_equal(got.cc, want.cc, (size_t)want.depth * sizeof(want.cc[0]));
    return cc;
}

/* A memo's answer for region `key` entered from frames f (fork_ctx, memo_enter). */
typedef uint32_t (*memo_answer)(uint32_t key, const uintptr_t *f, int n, int *asked);

/* Three time steps of `sites` enters from a's b, the last ones (from site
 * `marked` on) inside a marker open from a's line m: site k's leaf frame
 * leaf(k), its region key 100 + k % period, left again when `left` (an MPI
 * call). Each site gets the same node every step, into first[k]; the
 * process's table is asked in the first step only, the thread's cache of
 * nodes emptied before each step. */
static void three_steps(memo_answer answer, uint32_t sites, uint32_t marked, uintptr_t (*leaf)(uint32_t),
                        uint32_t period, int left, uint32_t *first)
{
    uintptr_t f[HCT_PATH_FRAMES];
    uint32_t ud = 0;
    int asked;
    for (int step = 0; step < 3; step++) {
        memset(P.cache, 0, sizeof(P.cache));
        for (uint32_t k = 0; k < sites; k++) {
            if (k == marked)
                enter(1, "am", &ud);
            int n = frames_of("ab", f);
            f[n++] = leaf(k);
            uint32_t cc = answer(100 + k % period, f, n, &asked);
            assert_int_not_equal(cc, HCA_UNDEF);
            if (step == 0)
                first[k] = cc;
            assert_int_equal(cc, first[k]);
            assert_int_equal(asked, step == 0);
            if (left)
                hct_path_leave(&P);
        }
        hct_path_leave(&P);
    }
}

static uintptr_t fork_leaf(uint32_t k)
{
    return k == 30 ? DEEP : 0x100 + k % 50;
}

/* The contexts of recurring forks found again (hct_path_memo.c): LULESH's
 * time step forks from 50 sites under one caller, one of them in code
 * inlined 10 deep, and here 5 more inside an open marker. Every answer is
 * hct_path_peek's; from the second step on they come from the memo alone:
 * with the thread's cache of nodes emptied before each step, the process's
 * table is not asked. Another key, another enclosing region or another
 * frame is another context. */
static void fork_contexts_found_again(void **state)
{
    (void)state;
    uintptr_t f[HCT_PATH_FRAMES];
    uint32_t first[55];
    int asked;
    memset(&M, 0, sizeof(M));
    three_steps(fork_ctx, 55, 50, fork_leaf, 50, 0, first);
    assert_string_equal(path_of(first[1]), "a,b,\x01,K101");
    assert_string_equal(path_of(first[51]), "a,m,K1,b,\x01,K101"); /* under the marker */
    int n = frames_of("ab", f);
    f[n++] = 0x101;
    assert_string_equal(path_of(fork_ctx(7, f, n, &asked)), "a,b,\x01,K7"); /* another key */
    f[1] = 'c';
    assert_string_equal(path_of(fork_ctx(101, f, n, &asked)), "a,c,\x01,K101"); /* another frame */
}

static hct_path_memo E; /* a thread's memo of its MPI calls' nodes */
static hct_path Q;      /* P as hct_path_enter leaves it */

/* An MPI call's enter from the memo, checked against hct_path_enter on a
 * copy of P: the node, the unwind distance, the path with each node's frame
 * address and place in its inline chain, the open regions. *asked: whether
 * the memo asked the process's table. */
static uint32_t memo_enter(uint32_t key, const uintptr_t *f, int n, int *asked)
{
    memcpy(&Q, &P, sizeof(Q));
    unsigned before = lookups;
    uint32_t ud = 0, uq = 0, cc = hct_path_memo_enter(&E, &P, key, f, n, &ud);
    *asked = lookups != before;
    assert_int_equal(hct_path_enter(&Q, key, f, n, &uq), cc);
    assert_int_equal(ud, uq);
    int d = Q.now.depth;
    assert_int_equal(P.now.depth, d);
    assert_memory_equal(P.now.cc, Q.now.cc, (size_t)d * sizeof(Q.now.cc[0]));
    assert_memory_equal(P.addr, Q.addr, (size_t)d * sizeof(Q.addr[0]));
    assert_memory_equal(P.level, Q.level, (size_t)d);
    assert_memory_equal(P.chain, Q.chain, (size_t)d);
    assert_int_equal(P.nopen, Q.nopen);
    assert_memory_equal(P.open, Q.open, (size_t)Q.nopen * sizeof(Q.open[0]));
    return cc;
}

static uintptr_t mpi_leaf(uint32_t k)
{
    return k == 5 ? DEEP : k % 2 ? 'C' + k % 8 : 'c' + k % 8;
}

/* MPI calls' nodes found again (hct_path_memo_enter): 12 call sites, some
 * in inlined code (two nodes, one ten), 4 of them inside an open marker.
 * Every enter is hct_path_enter's in every part of the path; from the
 * second step on the nodes come from the memo alone (the thread's cache of
 * nodes emptied before each step, the process's table not asked). The same
 * frames under another enclosing region, with another key, or after another
 * thread's context cut a frame's chain get their own nodes. */
static void mpi_calls_found_again(void **state)
{
    (void)state;
    uintptr_t f[HCT_PATH_FRAMES];
    uint32_t ud = 0, first[12];
    int asked;
    memset(&E, 0, sizeof(E));
    three_steps(memo_enter, 12, 8, mpi_leaf, 8, 1, first);
    assert_string_equal(path_of(first[0]), "a,b,c,K100");
    assert_string_equal(path_of(first[1]), "a,b,o,D,K101");
    assert_string_equal(path_of(first[8]), "a,m,K1,b,c,K100");
    int n = frames_of("abc", f);
    enter(1, "an", &ud); /* another enclosing region: another marker's line */
    assert_string_equal(path_of(memo_enter(100, f, n, &asked)), "a,n,K1,b,c,K100");
    hct_path_leave(&P);
    hct_path_leave(&P);
    assert_string_equal(path_of(memo_enter(7, f, n, &asked)), "a,b,c,K7"); /* another key */
    hct_path_leave(&P);
    /* chain_cut_by_a_team_context's: the memo's nodes after the cut */
    n = frames_of("aA", f);
    assert_string_equal(path_of(memo_enter(1, f, n, &asked)), "a,o,A,K1");
    hct_path_leave(&P);
    hct_path other;
    hct_ctx team;
    memset(&other, 0, sizeof(other));
    assert_string_equal(path_of(hct_path_peek(&other, 2, f, frames_of("aB", f), &team)), "a,o,B,K2");
    assert_int_not_equal(hct_path_enter_ctx(&P, &team, f, frames_of("st", f), &ud), HCA_UNDEF);
    hct_path_leave(&P);
    n = frames_of("aA", f);
    assert_string_equal(path_of(memo_enter(1, f, n, &asked)), "a,o,A,K1");
    assert_int_equal(asked, 0);
    hct_path_leave(&P);
}

static __attribute__((noinline)) int unwind_here(uintptr_t *frames)
{
    int n = hct_path_unwind(__builtin_return_address(0), frames);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
    return n;
}

static void unwinds_up_to_the_call(void **state)
{
    (void)state;
    uintptr_t frames[HCT_PATH_FRAMES];
    const void *ra = NULL;
    int n = unwind_here(frames);
    ra = __builtin_return_address(0);
    if (n < 2 && getenv("QEMU_LD_PREFIX")) /* scripts/cross-aarch64: libunwind finds no caller under qemu-user */
        skip();
    assert_true(n >= 2);
    /* the leaf: the call of unwind_here in this function (its return address - 1) */
    assert_true(frames[n - 1] > (uintptr_t)unwinds_up_to_the_call &&
                frames[n - 1] < (uintptr_t)unwinds_up_to_the_call + 4096);
    /* the caller of this function is the frame above */
    assert_int_equal(frames[n - 2], (uintptr_t)ra - 1);
}

/* A region's enter as the tracer's entries see it: its return address, its
 * caller's stack pointer, and the stack unwound then. */
typedef struct {
    const void *ret, *cfa;
    int n;
    uintptr_t frames[HCT_PATH_FRAMES];
} enter_seen;

static __attribute__((noinline)) void enter_here(enter_seen *e)
{
    e->ret = __builtin_return_address(0);
    e->cfa = __builtin_dwarf_cfa();
    e->n = hct_path_unwind(e->ret, e->frames);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
}

/* The enter's stack unwound later, `depth` calls deeper. */
static __attribute__((noinline)) int unwind_later(const enter_seen *e, uintptr_t *frames, int depth)
{
    int n = depth > 0 ? unwind_later(e, frames, depth - 1) : hct_path_unwind_from(e->ret, e->ret, e->cfa, frames);
    __asm__ volatile("" ::: "memory");
    return n;
}

static __attribute__((noinline)) int enter_then_nested_calls(enter_seen *e, uintptr_t *frames)
{
    enter_here(e);
    int n = unwind_later(e, frames, 3);
    __asm__ volatile("" ::: "memory");
    return n;
}

static __attribute__((noinline)) int another_function(const enter_seen *e, uintptr_t *frames)
{
    int n = unwind_later(e, frames, 2);
    __asm__ volatile("" ::: "memory");
    return n;
}

static void unwinds_an_enter_later(void **state)
{
    (void)state;
    static enter_seen e;
    uintptr_t frames[HCT_PATH_FRAMES];
    memset(frames, 0, sizeof(frames));
    int n = enter_then_nested_calls(&e, frames);
    if (e.n < 2 && getenv("QEMU_LD_PREFIX")) /* scripts/cross-aarch64: libunwind finds no caller under qemu-user */
        skip();
    /* the stack the enter had: its caller's call of it as the leaf, the same frames outside */
    assert_true(e.n >= 3);
    assert_int_equal(e.frames[e.n - 1], (uintptr_t)e.ret - 1);
    assert_int_equal(n, e.n);
    assert_memory_equal(frames, e.frames, (size_t)n * sizeof(frames[0]));
    /* the enter's caller returned: no frame of it at its stack address */
    assert_int_equal(another_function(&e, frames), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(region_under_its_call_path, setup),
        cmocka_unit_test_setup(marker_then_nested_call, setup),
        cmocka_unit_test_setup(team_context_from_another_thread, setup),
        cmocka_unit_test_setup(inline_chains_are_nodes, setup),
        cmocka_unit_test_setup(full_table_keeps_a_valid_state, setup),
        cmocka_unit_test_setup(recurring_sites_from_the_cache, setup),
        cmocka_unit_test_setup(chain_cut_by_a_team_context, setup),
        cmocka_unit_test_setup(fork_contexts_found_again, setup),
        cmocka_unit_test_setup(mpi_calls_found_again, setup),
        cmocka_unit_test_setup(unwinds_up_to_the_call, setup),
        cmocka_unit_test_setup(unwinds_an_enter_later, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

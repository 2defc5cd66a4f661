/* anchor.c: the depth at which a region's sampled stacks are cut for its
 * source bands (the rule is in anchor.h). */
#include "anchor.h"

#include <stdlib.h>
#include <string.h>

#define COMMON_SHARE 0.9

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static const char *region_name(const fold_trace *t, uint32_t region)
{
    return region < t->nregions && t->regions[region].name ? t->regions[region].name : "";
}

/* The chain's deepest frame running a function named `name`, or UINT32_MAX. */
static uint32_t on_chain(const fold_trace *t, const uint32_t *chain, uint32_t len, const char *name)
{
    for (uint32_t d = len; d > 0; d--)
        if (strcmp(region_name(t, chain[d - 1]), name) == 0)
            return d - 1;
    return UINT32_MAX;
}

/* Where the calling contexts show `callee` called: the deepest frame of the
 * chain running one of its callers; with `through` set, one of its callers'
 * callers at any distance (the boundary call made in helpers off the chain:
 * CoMD's time step calls redistributeAtoms -> haloExchange -> exchangeData,
 * whose MPI_Sendrecv bounds the burst in which it then calls computeForce). */
static uint32_t caller_of(const fold_trace *t, const uint32_t *chain, uint32_t len, const char *callee, int through)
{
    uint32_t best = UINT32_MAX;
    for (size_t c = 0; c < t->ncontexts; c++) {
        const fold_context_def *x = &t->contexts[c];
        if (x->parent >= t->ncontexts || strcmp(region_name(t, x->region), callee) != 0)
            continue;
        for (uint32_t p = x->parent, hops = 0; p < t->ncontexts && hops < t->ncontexts;
             p = t->contexts[p].parent, hops++) {
            uint32_t d = on_chain(t, chain, len, region_name(t, t->contexts[p].region));
            if (d != UINT32_MAX && (best == UINT32_MAX || d > best))
                best = d;
            if (!through || d != UINT32_MAX)
                break; /* the nearest caller on the chain */
        }
    }
    return best;
}

uint32_t fold_most_frequent(uint32_t *v, size_t n, size_t *count)
{
    qsort(v, n, sizeof(*v), cmp_u32);
    uint32_t best = 0;
    *count = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j] == v[i])
            j++;
        if (j - i > *count) {
            *count = j - i;
            best = v[i];
        }
        i = j;
    }
    return best;
}

static void remember(fold_anchors *known, uint32_t function)
{
    for (size_t i = 0; i < known->n; i++)
        if (known->functions[i] == function)
            return;
    if (known->n == known->cap) {
        size_t cap = known->cap ? 2 * known->cap : 16;
        uint32_t *p = realloc(known->functions, cap * sizeof(*p));
        if (!p)
            return; /* a hint only */
        known->functions = p;
        known->cap = cap;
    }
    known->functions[known->n++] = function;
}

uint32_t fold_anchor_depth(const fold_trace *t, const fold_stack_sample *s, size_t n, const char *const *callers,
                           size_t ncallers, fold_anchors *known)
{
    uint32_t *chain = NULL, *scratch = malloc((n + 1) * sizeof(*scratch));
    uint8_t *on = malloc(n + 1);
    uint32_t len = 0, cut = 0;
    int split = 0;
    if (!scratch || !on)
        goto out;
    memset(on, 1, n);
    for (uint32_t d = 0;; d++) {
        size_t k = 0, ended = 0;
        for (size_t i = 0; i < n; i++) {
            if (on[i] && s[i].depth > d)
                scratch[k++] = s[i].frames[d].function;
            ended += on[i] && s[i].depth == d;
        }
        /* the chain ends where more than a tenth of its samples end (time in
         * its last function itself, or the OpenMP runtime's time given to a
         * body, forks.h): the code below is one part of the region, not its
         * common path */
        if (k == 0 || (d > 0 && (double)ended > (1.0 - COMMON_SHARE) * (double)(k + ended)))
            break;
        size_t best_n;
        uint32_t best = fold_most_frequent(scratch, k, &best_n);
        if ((double)best_n < COMMON_SHARE * (double)k) {
            split = 1;
            break;
        }
        uint32_t *c = realloc(chain, (len + 1) * sizeof(*c));
        if (!c)
            goto out;
        chain = c;
        chain[len++] = best;
        for (size_t i = 0; i < n; i++)
            on[i] = on[i] && (s[i].depth <= d || s[i].frames[d].function == best);
    }
    if (len == 0)
        goto out;
    if (split) {
        cut = len - 1;
        if (known)
            remember(known, chain[cut]);
        goto out;
    }
    uint32_t d = UINT32_MAX;
    for (int through = 0; through < 2 && d == UINT32_MAX; through++)
        for (size_t i = 0; i < ncallers && d == UINT32_MAX; i++)
            if (callers[i])
                d = caller_of(t, chain, len, callers[i], through);
    for (uint32_t k = len - 1; known && k > 0 && d == UINT32_MAX; k--) /* the leaf calls nothing */
        for (size_t i = 0; i < known->n && d == UINT32_MAX; i++)
            if (chain[k - 1] == known->functions[i])
                d = k - 1;
    for (size_t i = 0; i < ncallers && d == UINT32_MAX; i++) {
        const char *file = NULL;
        for (size_t r = 0; callers[i] && r < t->nregions && !file; r++)
            if (strcmp(region_name(t, (uint32_t)r), callers[i]) == 0 && t->regions[r].file && *t->regions[r].file)
                file = t->regions[r].file;
        for (uint32_t k = 0; file && k + 1 < len && d == UINT32_MAX; k++)
            if (chain[k] < t->nregions && t->regions[chain[k]].file && strcmp(t->regions[chain[k]].file, file) == 0)
                d = k;
    }
    if (d == UINT32_MAX)
        d = on_chain(t, chain, len, "main");
    /* the leaf itself calling a boundary function (it runs throughout, as
     * miniFE's matvec after its exchange_externals): its caller, so that the
     * band names it (the root was cut: __libc_start_main, 100 %) */
    if (d != UINT32_MAX && d + 1 >= len)
        d = len >= 2 ? len - 2 : UINT32_MAX;
    cut = d != UINT32_MAX ? d : 0;
out:
    free(chain);
    free(scratch);
    free(on);
    return cut;
}

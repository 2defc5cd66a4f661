/* sites.h: call-site identity across ranks. A call site is its region (the
 * MPI call, the user region, ...) and the functions of the call path that
 * leads to it; the source lines of that path only tell sites apart when one
 * location runs several of them. So the halo exchange whose last MPI_Isend sits
 * on a line that depends on the rank's neighbours is one site, while two
 * MPI_Allreduce calls of the same function, both run by every rank, stay two.
 * The rule (docs/output.md, "Regions"):
 *   1. the function key of a region key (kind, opening context, closing
 *      context) replaces each context by its function path: the regions of the
 *      context and of all its ancestors, without source lines;
 *   2. the region keys sharing a function key are merged into one when no
 *      location has instances of two of them (the lines differ only between
 *      locations); otherwise all of them stay apart;
 *   3. for compute bursts, the keys (after rule 2) that share a helper-free
 *      key -- each call's region with the function path of its caller's
 *      caller, so that the helper making the call is left out -- are placed,
 *      in key order, each in the first bin where no location runs a key
 *      already; the keys of a bin are merged. CloverLeaf's halo exchange opens
 *      with the MPI_Isend of clover_send_recv_message_left on ranks with a
 *      left neighbour and of ..._right on the others: one region. */
#ifndef FOLD_SITES_H
#define FOLD_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* A merged key: the representative (the smallest of the merged keys, which
 * every instance of the merged keys now carries) and the labels of its sites,
 * "MPI_Isend@halo3d.c:111|115|116". */
typedef struct {
    int kind;
    uint32_t open_context, close_context;
    char *open_label, *close_label;
    uint32_t variants; /* region keys merged */
} fold_site_merge;

typedef fold_instance *fold_instance_ptr;

typedef struct {
    fold_site_merge *merges;
    size_t n;
} fold_site_merges;

/* Per calling context, the smallest context with the same function path
 * (region, parents' regions). NULL when memory ran out; free() it. */
uint32_t *fold_site_classes(const fold_trace *t);

/* Applies rules 2 and 3 to the instances ins[0..n) (pointers, sorted by key, then
 * location): rewrites the keys of merged instances to their representative and
 * records each merge in *out. Returns the number of merges (0: nothing
 * changed), or -1 when memory ran out. */
long fold_sites_merge(const fold_trace *t, fold_instance *const *ins, size_t n, fold_site_merges *out);

/* The merge whose representative is this key, or NULL. */
const fold_site_merge *fold_site_merge_find(const fold_site_merges *m, int kind, uint32_t open_context,
                                            uint32_t close_context);

void fold_site_merges_free(fold_site_merges *m);

#endif

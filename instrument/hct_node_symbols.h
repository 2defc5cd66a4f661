/* hct_node_symbols.h: symbolization shared by the processes of a node
 * (hct_node_symbols.c). The ranks of an MPI job on one node run the same
 * files; what libdw answers for a code address (its inline chain's node keys,
 * and its names, files and lines) depends only on the file and the offset
 * in it. One process of the node, the owner, does the libdw work and
 * publishes each answer in a file mapping under /dev/shm; the others read it
 * there, or ask the owner's server thread for it and wait asleep. A process
 * that finds no answer (the owner gone, the table full, a file the owner has
 * not mapped) asks its own libdw: correctness never depends on another
 * process. Never in a signal handler. */
#ifndef HCT_NODE_SYMBOLS_H
#define HCT_NODE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "hct.h"
#include "hct_symbols.h"

/* What a process knows of an address, as published: its node keys without
 * the module (hct_symbol_keys) and its inline chain's names. */
typedef struct {
    int nkeys, nnames;
    uint64_t keys[HCT_INLINE_MAX];
} hct_node_answer;

/* The shared file's name for this process's job on this node from the
 * launcher's environment (Open MPI / PMIx: the job's namespace; 2 or more
 * ranks on the node), into buf; -1 if there is no such job (a program run
 * alone, one rank on the node): nothing is shared. */
int hct_node_symbols_path(char *buf, size_t n) HCT_HIDDEN;
/* Maps the shared file at path, created if missing (0600). 0, or -1. */
int hct_node_symbols_attach(const char *path) HCT_HIDDEN;
int hct_node_symbols_attached(void) HCT_HIDDEN;
/* Removes the file's name (its mapping stays with the processes that have
 * it): once every process of the node has attached, so that nothing is
 * left in /dev/shm, even if a process is killed later. */
void hct_node_symbols_unlink(const char *path) HCT_HIDDEN;
/* The published answer for (file, offset): its keys into *a, and up to
 * max names into names (NULL: none wanted). 1 if found, else 0. */
int hct_node_symbols_find(uint64_t file, uint64_t offset, hct_node_answer *a, hct_symbol *names, int max) HCT_HIDDEN;
/* Publishes an answer: written whole, then made visible with one atomic
 * store (a process killed meanwhile leaves nothing readable). 0, or -1
 * (the table or its space full: the answer stays this process's). */
int hct_node_symbols_publish(uint64_t file, uint64_t offset, const uint64_t *keys, int nkeys,
                             const hct_symbol *names, int nnames) HCT_HIDDEN;
/* Makes this process the owner if there is none (or the last one is gone):
 * 1 if it is the owner now, else 0. */
int hct_node_symbols_claim(void) HCT_HIDDEN;
/* Asks the owner to publish (file, offset) and waits asleep (10 us doubling
 * to 1 ms) until it did or gave up; at most `limit_ns`, and not if the owner
 * is gone. 1 if the answer is published now, 0 if not (the owner could not
 * answer it), -1 if there is no owner to ask or it did not answer in time. */
int hct_node_symbols_request(uint64_t file, uint64_t offset, uint64_t limit_ns) HCT_HIDDEN;
/* The owner's server: answers the other processes' requests with
 * publish(file, offset, arg), forever; run on a thread of its own. */
void hct_node_symbols_serve(void (*publish)(uint64_t file, uint64_t offset, void *arg), void *arg) HCT_HIDDEN;

/* What this process did, for tests: answers found published, asked of the
 * owner (and found), published itself. */
typedef struct {
    uint64_t found, asked, published;
} hct_node_stats;
void hct_node_symbols_stats(hct_node_stats *out) HCT_HIDDEN;

#endif

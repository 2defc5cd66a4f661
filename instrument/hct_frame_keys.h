/* hct_frame_keys.h: the node keys of sampled addresses (hct_symbol_keys),
 * computed on a thread of the tracer's own (hct_frame_keys.c). */
#ifndef HCT_FRAME_KEYS_H
#define HCT_FRAME_KEYS_H

#include <stdint.h>

#include "hct.h"
#include "hct_symbols.h"

/* hct_symbol_keys(address) with the frames' symbolizer (DWARF from the modules
 * themselves), run on the tracer's worker thread while the caller waits: libdw's
 * CPU time and page faults are not counted in the application thread's
 * counters. keys has room for HCT_INLINE_MAX. Calls are serialized by the
 * caller. Returns how many keys (at least 1). */
int hct_frame_keys(uintptr_t address, uint64_t *keys) HCT_HIDDEN;
/* The time the calling thread waited for the worker (or did its work) since
 * it was last counted, ns: the tracer's time. A region boundary counts it
 * before its timestamp (it happened before), a section of the tracer as it
 * leaves (hct_tool_exit: the waits after its last boundary); a drain, which
 * measures its own time, leaves it as it found it. Before, a region enter
 * from a new call site held libdw's lookups of its frames after its
 * timestamp, uncounted. */
extern HCT_TLS uint64_t hct_frame_keys_waited HCT_HIDDEN;
/* Starts the worker now (at load, before the application's counters count:
 * creating a thread touches memory); otherwise the first hct_frame_keys does. */
void hct_frame_keys_start(void) HCT_HIDDEN;
/* The frames' symbolizer, opened if needed, for naming frames at the end (the
 * one the keys came from, so that both agree); NULL if it cannot be opened.
 * Use it only while no hct_frame_keys call can run. */
hct_symbolizer *hct_frame_symbolizer(void) HCT_HIDDEN;
/* The resident pages of the debug sections the frames' symbolizer read, given
 * back now (hct_symbolizer_release_pages) rather than after the worker's idle
 * delay: at the end, before the events are written and the frames named (which
 * reads again only the pages it needs). */
void hct_frame_keys_release(void) HCT_HIDDEN;
/* hct_symbolize_inline with the frames' symbolizer, on the calling thread, for
 * naming frames at the end (same conditions as hct_frame_symbolizer), after
 * the node's answer (then libdw is not opened); 0 without a symbolizer. Once the
 * lookups took a few page faults (a unit's line table, its DIEs read), the
 * debug sections' pages are given back, as the worker does, so that naming a
 * run's frames does not hold every unit's DWARF at once. */
int hct_frame_name(uintptr_t address, hct_symbol *out, int max) HCT_HIDDEN;

/* In an MPI job with several ranks on this node: attaches the node's shared
 * symbolization (hct_node_symbols.h), before the ranks first meet. */
void hct_frame_keys_node_join(void) HCT_HIDDEN;
/* Once every rank has joined (after a collective of all ranks that follows
 * every rank's join): the shared file's name removed (the mappings stay),
 * and a process that did not attach does not any more. */
void hct_frame_keys_node_joined(void) HCT_HIDDEN;
/* HCATRACE_VERBOSE=2: one line of what the node's table gave this process,
 * whether it did the node's work and whether it opened libdw for frames. */
void hct_frame_keys_node_report(int rank) HCT_HIDDEN;

#endif

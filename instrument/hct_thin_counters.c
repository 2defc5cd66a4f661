/* hct_thin_counters.c: counter values at both ends of a kept-back instance
 * that is written (a sample landed in it, it lasted, something nested in
 * it), read only when a sample may land in it: the sampling source says when
 * the thread's next sample may come (hct_sampling_due_within). The values
 * read at the enter wait in the thread's state beside its pending entry and
 * are written with the enter if it is written; its leave then reads the
 * counters as a full boundary does. Every value written is a reading at the
 * instance's own enter or leave, never another time's. No allocation, no
 * lock: the state is the thread's own. */
#include "hct_thin_counters.h"

#include <stddef.h>

#include "hct_boundary.h"
#include "hct_counter_read.h"
#include "hct_counter_rotation.h"
#include "hct_delivery.h"
#include "hct_sampling.h"
#include "hct_tooltime.h"

typedef struct {
    int have, set, n;
    uint64_t mono; /* the enter's time, read right before its values */
    uint64_t tool_ns, tool_cpu_ns; /* the thread's tool time before the enter */
    uint64_t raw[MAX_VALUES];
} begin_values;

/* per pending entry, as t->thin.pending */
static HCT_TLS begin_values begin[HCT_THIN_DEPTH];
static HCT_TLS int writing;
/* bit k: the open region at t->path.open[k] is a kept-back instance written
 * with its enter's values: its leave reads them too */
static HCT_TLS uint32_t with_values;
_Static_assert(HCT_PATH_OPEN <= 32, "one bit per open region");
/* the open kept-back instances written: their key's slot and enter time */
static HCT_TLS struct {
    int slot;
    uint64_t ts;
} open_written[HCT_PATH_OPEN];
/* per key (slot of t->thin.keys): the kept-back instances written and their
 * time (those counted are in the slot) */
static HCT_TLS struct {
    uint64_t ns, n;
} written_time[HCT_THIN_SLOTS];

static int slot_index(const hct_thread *t, const hct_thin_slot *s)
{
    ptrdiff_t i = s ? s - t->thin.keys.slot : -1;
    return i >= 0 && i < HCT_THIN_SLOTS ? (int)i : -1;
}

/* The read itself (the rare case: kept out of the enter's fast path). */
__attribute__((noinline)) static void read_at_enter(hct_thread *t, begin_values *b)
{
    uint64_t wall = t->tool_ns, cpu = t->tool_cpu_ns;
    uint64_t now = hca_clock_now(); /* time, then counters, as at a boundary */
    int n = hct_counters_read_signal(t->ctr, &b->set, b->raw);
    if (n <= 0)
        return;
    b->mono = now;
    b->n = n;
    b->tool_ns = wall;
    b->tool_cpu_ns = cpu;
    b->have = 1;
    /* the read is the tracer's time after the enter's timestamp, as a boundary's */
    uint64_t spent = hct_tool_work(&t->boundary_after, hca_clock_now() - now);
    t->tool_ns += spent;
    t->tool_cpu_ns += spent;
    hct_tool_note_team();
}

void hct_thin_counters_enter(hct_thread *t, hct_thin_pending *p, int i)
{
    begin[i].have = 0;
    int k = t->ctr ? slot_index(t, p->slot) : -1;
    if (k >= 0 && hct_sampling_maybe_due(t, p->ts, hct_thin_read_window(p->slot->time_ns + written_time[k].ns,
                                                                        p->slot->thinned + written_time[k].n)))
        read_at_enter(t, &begin[i]);
}

uint64_t hct_thin_counters_enter_time(int i, uint64_t ts)
{
    return i >= 0 && i < HCT_THIN_DEPTH && begin[i].have ? begin[i].mono : ts;
}

void hct_thin_counters_writing(int i)
{
    writing = i;
}

void hct_thin_counters_put(hct_thread *t, uint64_t ts)
{
    int level = t->path.nopen - 1;
    if (level < 0 || writing < 0 || writing >= HCT_THIN_DEPTH)
        return;
    uint32_t bit = 1u << level;
    const hct_thin_pending *p = &t->thin.pending[writing];
    open_written[level].slot = slot_index(t, p->slot);
    open_written[level].ts = p->ts;
    begin_values *b = &begin[writing];
    writing = -1;
    with_values &= ~bit;
    if (!b->have)
        return;
    b->have = 0;
    hct_counters_write_sample(t, ts, b->set, b->raw, b->n);
    hct_tool_write(t, ts, b->tool_ns, b->tool_cpu_ns);
    with_values |= bit;
}

uint64_t hct_thin_counters_leave(hct_thread *t)
{
    int level = t->path.nopen - 1;
    uint32_t bit = level >= 0 ? 1u << level : 0;
    uint64_t ts;
    if ((with_values & bit) && t->extras) {
        ts = hct_boundary_values(t, 0, 0);
    } else { /* the leave's time first: the drain's work is not the instance's (as hct_boundary_values) */
        uint64_t now = hca_clock_now();
        hct_sampling_drain_before(t, now);
        ts = hct_timestamp_at(t, now);
    }
    with_values &= ~bit;
    if (bit && open_written[level].slot >= 0 && ts > open_written[level].ts) {
        written_time[open_written[level].slot].ns += ts - open_written[level].ts;
        written_time[open_written[level].slot].n++;
        open_written[level].slot = -1;
    }
    return ts;
}

/* hct_counter_rotation.c: counters per thread over its life: the first set at the
 * thread's start, values written as OTF2 Metric events at region boundaries
 * (read at the boundary's time, written after the older samples), samples and
 * the end, and the rotation of sets across region instances. Values
 * written are running totals per event and thread that never decrease, also
 * across rotations: an event that is in several sets continues from its last value. */
#include "hct_counter_rotation.h"

#include "hct_counter_read.h"
#include "hct_diag.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Signal-safe: raw values of the thread's current set. */
int hct_counters_read_signal(const hct_ctr_thread *c, int *set, uint64_t *raw)
{
    *set = c->cur;
    return hct_ctr_read_raw(c, c->cur, raw, 1);
}

/* A forked child's thread counts from zero again (its CPU time, faults and
 * switches are its own): read without perf events, its values continue from
 * the last ones written. */
static HCT_TLS hct_thread *tls_counted; /* the calling thread, once its counters started (on it) */

static void after_fork_in_child(void)
{
    hct_thread *t = tls_counted;
    hct_ctr_thread *c = t ? t->ctr : NULL; /* NULL once closed */
    if (c)
        hct_ctr_open_set(c, c->cur);
}

void hct_counters_fork_setup(void)
{
    if (hct_ctr.no_perf)
        pthread_atfork(NULL, NULL, after_fork_in_child);
}

hct_ctr_thread *hct_counters_thread_start(hct_thread *t, uint32_t start_set)
{
    if (!hct_ctr.nsets)
        return NULL;
    hct_ctr_thread *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->tid = (pid_t)syscall(SYS_gettid);
    for (int i = 0; i < hct_ctr.nsets; i++) {
        for (int k = 0; k < HCT_MAX_SET_EVENTS; k++)
            c->fd[i][k] = -1;
        c->usable[i] = 1;
    }
    /* the first set that opens, from this thread's starting set on (and, when
     * not lazy, all the others too) */
    int first = (int)(start_set % (uint32_t)hct_ctr.nsets), cur = -1;
    for (int i = 0; i < hct_ctr.nsets && (cur < 0 || !hct_ctr.lazy); i++)
        if (hct_ctr_open_set(c, (first + i) % hct_ctr.nsets) == 0 && cur < 0)
            cur = (first + i) % hct_ctr.nsets;
    if (cur < 0) {
        free(c);
        return NULL;
    }
    c->cur = cur;
    c->switch_ts = hca_clock_now();
    hct_ctr_enable(c, c->cur);
    tls_counted = t; /* on the thread itself (perf events open for the caller) */
    return c;
}

/* Writes the values of `set` (raw + offsets) as one Metric event. */
static void write_values(hct_thread *t, uint64_t ts, int set, const uint64_t *raw, int n)
{
    hct_ctr_thread *c = t->ctr;
    const hct_ctr_set *s = &hct_ctr.set[set];
    OTF2_Type types[MAX_VALUES];
    OTF2_MetricValue values[MAX_VALUES];
    for (int k = 0; k < n; k++) {
        uint64_t v = raw[k] + c->offset[set][k];
        uint32_t m = s->member[k];
        if (v < c->last[m])
            v = c->last[m]; /* never backwards (a read racing a rotation) */
        c->last[m] = v;
        types[k] = OTF2_TYPE_UINT64;
        values[k].unsigned_int = v;
    }
    hct_otf2_check(t, OTF2_EvtWriter_Metric(t->writer, NULL, ts, s->class_ref, (uint8_t)n, types, values));
}

void hct_counters_write_sample(hct_thread *t, uint64_t ts, int set, const uint64_t *raw, int n)
{
    if (t->ctr && set >= 0 && set < hct_ctr.nsets && n == hct_ctr.set[set].nvalues)
        write_values(t, ts, set, raw, n);
}

static void rotate(hct_thread *t, uint64_t ts)
{
    hct_ctr_thread *c = t->ctr;
    /* the next set that opens on this thread */
    int to = c->cur;
    for (;;) {
        do
            to = (to + 1) % hct_ctr.nsets;
        while (!c->usable[to] && to != c->cur);
        if (to == c->cur)
            return;
        if (c->fd[to][0] >= 0 || hct_ctr_open_set(c, to) == 0)
            break;
    }
    uint64_t raw[MAX_VALUES];
    hct_ctr_disable(c, c->cur);
    int n = hct_ctr_read_raw(c, to, raw, 1); /* disabled: frozen */
    if (n < 0) {
        hct_ctr_enable(c, c->cur);
        if (hct_ctr.lazy)
            hct_ctr_close_set(c, to);
        return;
    }
    const hct_ctr_set *s = &hct_ctr.set[to];
    for (int k = 0; k < n; k++)
        c->offset[to][k] = c->last[s->member[k]] - raw[k];
    int from = c->cur;
    hct_ctr_enable(c, to);
    c->cur = to; /* a sample from now on reads the new set */
    if (hct_ctr.lazy)
        hct_ctr_close_set(c, from);
    write_values(t, ts, to, raw, n);
}

void hct_counters_boundary_read(const hct_thread *t, hct_ctr_reading *r)
{
    const hct_ctr_thread *c = t->ctr;
    r->n = 0;
    if (!c)
        return;
    r->set = c->cur;
    r->n = hct_ctr_read_raw(c, c->cur, r->raw, 1);
}

void hct_counters_boundary_write(hct_thread *t, uint64_t ts, int enter, const hct_ctr_reading *r)
{
    hct_ctr_thread *c = t->ctr;
    if (!c)
        return;
    if (r->n > 0 && r->set == c->cur)
        write_values(t, ts, c->cur, r->raw, r->n);
    if (enter)
        c->instances++;
    /* only where the old set's values were written: a boundary without them
     * (an MPI enter after a short burst, hct_mpi_burst.h) would start the new
     * set from older values, the counts since lost from the totals */
    if (hct_ctr.nsets > 1 && r->n > 0 && ((hct.cfg.rotate_instances && c->instances >= hct.cfg.rotate_instances) ||
                        (hct.cfg.rotate_ns && ts - c->switch_ts >= hct.cfg.rotate_ns))) {
        rotate(t, ts);
        c->instances = 0;
        c->switch_ts = ts;
    }
}

void hct_counters_thread_close(hct_thread *t)
{
    hct_ctr_thread *c = t->ctr;
    if (!c)
        return;
    t->ctr = NULL;
    for (int i = 0; i < hct_ctr.nsets; i++)
        hct_ctr_close_set(c, i);
    free(c);
}
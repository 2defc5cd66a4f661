/* hct_ring.h: a single-producer single-consumer ring of variable-size records
 * in a preallocated buffer, safe to fill from a signal handler (no locks, no
 * allocation, no system calls) while the same thread, or another one, drains
 * it. Positions only grow; a record never wraps: when the space left before
 * the end is too small, a zero-size header tells the consumer to skip to the
 * start. Records are 8-byte aligned and begin with a uint32_t size (bytes,
 * header included); 0 is reserved for that skip marker. */
#ifndef HCT_RING_H
#define HCT_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    unsigned char *buf;
    uint64_t cap;              /* bytes, a multiple of 8 */
    _Atomic uint64_t head;     /* written by the producer */
    _Atomic uint64_t tail;     /* written by the consumer */
} hct_ring;

static inline void hct_ring_init(hct_ring *r, void *buf, uint64_t cap)
{
    r->buf = buf;
    r->cap = cap & ~(uint64_t)7;
    atomic_store(&r->head, 0);
    atomic_store(&r->tail, 0);
}

static inline uint64_t hct_ring_round(uint64_t n)
{
    return (n + 7) & ~(uint64_t)7;
}

/* Producer: space for a record of `size` bytes, or NULL when full. The record
 * becomes visible to the consumer with hct_ring_commit(r, size). */
static inline void *hct_ring_reserve(hct_ring *r, uint64_t size)
{
    size = hct_ring_round(size);
    if (size == 0 || size > r->cap)
        return NULL;
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    uint64_t pos = head % r->cap, room = r->cap - pos;
    uint64_t need = size <= room ? size : room + size;
    if (r->cap - (head - tail) < need)
        return NULL;
    return r->buf + (size <= room ? pos : 0);
}

static inline void hct_ring_commit(hct_ring *r, uint64_t size)
{
    size = hct_ring_round(size);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t pos = head % r->cap, room = r->cap - pos;
    if (size > room) {
        uint32_t skip = 0; /* room >= 8: positions and sizes are multiples of 8 */
        memcpy(r->buf + pos, &skip, sizeof(skip));
        head += room;
    }
    atomic_store_explicit(&r->head, head + size, memory_order_release);
}

/* Consumer: the next record (its first 4 bytes are its size), or NULL. */
static inline const void *hct_ring_peek(hct_ring *r)
{
    while (1) {
        uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
        uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
        if (tail == head)
            return NULL;
        uint64_t pos = tail % r->cap;
        uint32_t size;
        memcpy(&size, r->buf + pos, sizeof(size));
        if (size != 0)
            return r->buf + pos;
        atomic_store_explicit(&r->tail, tail + (r->cap - pos), memory_order_release);
    }
}

static inline void hct_ring_pop(hct_ring *r)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint32_t size;
    memcpy(&size, r->buf + tail % r->cap, sizeof(size));
    atomic_store_explicit(&r->tail, tail + hct_ring_round(size), memory_order_release);
}

static inline int hct_ring_empty(hct_ring *r)
{
    return atomic_load_explicit(&r->tail, memory_order_relaxed) ==
           atomic_load_explicit(&r->head, memory_order_acquire);
}

#endif

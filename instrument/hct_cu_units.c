/* hct_cu_units.c: the sorted per-compilation-unit records (hct_cu_units.h). */
#include "hct_cu_units.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const void *key_of(const char *record)
{
    const void *key;
    memcpy(&key, record, sizeof(key));
    return key;
}

void *hct_cu_unit_slot(void **units, size_t *n, size_t *cap, size_t size, const void *key, int *added)
{
    char *base = *units;
    size_t lo = 0, hi = *n;
    *added = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)key_of(base + mid * size) < (uintptr_t)key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < *n && key_of(base + lo * size) == key)
        return base + lo * size;
    if (*n == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : 8;
        char *grown = realloc(base, grown_cap * size);
        if (!grown)
            return NULL;
        *units = base = grown;
        *cap = grown_cap;
    }
    memmove(base + (lo + 1) * size, base + lo * size, (*n - lo) * size);
    (*n)++;
    char *record = base + lo * size;
    memset(record, 0, size);
    memcpy(record, &key, sizeof(key));
    *added = 1;
    return record;
}

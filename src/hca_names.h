/* hca_names.h: "did you mean": the edit distance between names, shared by
 * every part that suggests the closest known name (configuration variables,
 * event names, model names). */
#ifndef HCA_NAMES_H
#define HCA_NAMES_H

#include <stddef.h>

/* Levenshtein distance, case-insensitive; names longer than 200 characters
 * compare as far apart as the longer one is long. */
size_t hca_edit_distance(const char *a, const char *b);

/* The (at most) k names closest to `want`, appended to out as "a, b, c"
 * (nothing if there are no names). `key` maps a name to the part compared
 * (e.g. without a "pmu::" prefix), NULL for the whole name; names for which
 * `skip` returns nonzero are not considered (NULL: none). Returns how many
 * were written. k is at most 8. */
size_t hca_closest_names(const char *want, const char *const *names, size_t n, size_t k,
                         const char *(*key)(const char *), int (*skip)(const char *), char *out, size_t outlen);

#endif

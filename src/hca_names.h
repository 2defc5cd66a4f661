/* hca_names.h: "did you mean": the edit distance between names, shared by
 * every part that suggests the closest known name (configuration variables,
 * event names, model names). */
#ifndef HCA_NAMES_H
#define HCA_NAMES_H

#include <stddef.h>

/* Levenshtein distance, case-insensitive; names longer than 200 characters
 * compare as far apart as the longer one is long. */
size_t hca_edit_distance(const char *a, const char *b);

#endif

/* model_files.h: the shipped model files (models/NAME.model, relative to the
 * repository, where the tests run), sorted, for the unit tests that check
 * every one. Include after cmocka.h. */
#ifndef TEST_MODEL_FILES_H
#define TEST_MODEL_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODELS_DIR "models"

static int compare_names(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* Fills names with "models/NAME.model", sorted; returns how many. */
static size_t list_models(char names[][256], size_t max)
{
    DIR *d = opendir(MODELS_DIR);
    assert_non_null(d);
    size_t n = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        size_t len = strlen(e->d_name);
        if (len > 6 && len < 200 && strcmp(e->d_name + len - 6, ".model") == 0)
            snprintf(names[n++], 256, "%s/%.200s", MODELS_DIR, e->d_name);
    }
    closedir(d);
    qsort(names, n, 256, compare_names);
    return n;
}

#endif

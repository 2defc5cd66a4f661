/* hca_model_path.c: finding model files by name or for a PMU (see
 * hca_model_path.h). Only reads directory listings and the `match` line of
 * model files; parsing is hca_model.c's. */
#include "hca_model_path.h"

#include "hca_names.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef HCA_MODELS_INSTALL_DIR
#define HCA_MODELS_INSTALL_DIR "/usr/local/share/hcatrace/models"
#endif
#ifndef HCA_MODELS_SOURCE_DIR
#define HCA_MODELS_SOURCE_DIR "models"
#endif

#define MAX_DIRS 16

typedef struct {
    char buf[4096];
    const char *dir[MAX_DIRS];
    int n;
} dir_list;

static void dirs(dir_list *d)
{
    d->n = 0;
    size_t used = 0;
    const char *env = getenv("HCATRACE_MODEL_PATH");
    const char *fixed[2] = { HCA_MODELS_INSTALL_DIR, HCA_MODELS_SOURCE_DIR };
    const char *p = env ? env : "";
    while (*p && d->n < MAX_DIRS - 2) {
        size_t len = strcspn(p, ":");
        if (len && used + len + 1 < sizeof(d->buf)) {
            memcpy(d->buf + used, p, len);
            d->buf[used + len] = 0;
            d->dir[d->n++] = d->buf + used;
            used += len + 1;
        }
        p += len + (p[len] == ':');
    }
    for (int i = 0; i < 2; i++)
        d->dir[d->n++] = fixed[i];
}

void hca_model_dirs(char *out, size_t outlen)
{
    dir_list d;
    dirs(&d);
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < d.n && used < outlen; i++) {
        int w = snprintf(out + used, outlen - used, "%s%s", i ? ":" : "", d.dir[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a > b && strcmp(s + a - b, suffix) == 0;
}

int hca_model_find(const char *name, char *path, size_t pathlen, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!name || !*name) {
        snprintf(err, errlen, "no model name");
        return -1;
    }
    if (strchr(name, '/') || has_suffix(name, ".model")) {
        if (!is_file(name)) {
            snprintf(err, errlen, "model file %s cannot be read", name);
            return -1;
        }
        snprintf(path, pathlen, "%s", name);
        return 0;
    }
    dir_list d;
    dirs(&d);
    char best[128] = "";
    size_t best_d = (size_t)-1;
    for (int i = 0; i < d.n; i++) {
        char p[4096];
        snprintf(p, sizeof(p), "%s/%s.model", d.dir[i], name);
        if (is_file(p)) {
            snprintf(path, pathlen, "%s", p);
            return 0;
        }
        DIR *dd = opendir(d.dir[i]);
        if (!dd)
            continue;
        const struct dirent *e;
        while ((e = readdir(dd)) != NULL) {
            if (!has_suffix(e->d_name, ".model"))
                continue;
            char base[128];
            snprintf(base, sizeof(base), "%.*s", (int)(strlen(e->d_name) - 6), e->d_name);
            size_t dist = hca_edit_distance(name, base);
            if (dist < best_d) {
                best_d = dist;
                snprintf(best, sizeof(best), "%s", base);
            }
        }
        closedir(dd);
    }
    char where[1024];
    hca_model_dirs(where, sizeof(where));
    if (best[0])
        snprintf(err, errlen, "no model '%s' (closest: %s) in %s", name, best, where);
    else
        snprintf(err, errlen, "no model '%s'; no model files in %s", name, where);
    return -1;
}

/* Does the `match` line of the file list the PMU? */
static int matches_pmu(const char *file, const char *pmu)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return 0;
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        const char *s = line + strspn(line, " \t");
        if (strncmp(s, "match", 5) != 0 || (s[5] != ' ' && s[5] != '\t'))
            continue;
        s += 5;
        s += strspn(s, " \t");
        if (strncmp(s, "pmu=", 4) != 0)
            break;
        s += 4;
        size_t len = strcspn(s, " \t#\r\n");
        while (len) {
            size_t k = strcspn(s, ",");
            if (k > len)
                k = len;
            if (k == strlen(pmu) && strncmp(s, pmu, k) == 0)
                found = 1;
            s += k;
            len -= k;
            if (len && *s == ',') {
                s++;
                len--;
            }
        }
        break;
    }
    fclose(f);
    return found;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The *.model files of a directory, sorted by name (at most 256; strdup'ed
 * into names). Returns how many. */
static size_t model_files(const char *dir, char **names)
{
    DIR *dd = opendir(dir);
    if (!dd)
        return 0;
    size_t n = 0;
    const struct dirent *e;
    while ((e = readdir(dd)) != NULL && n < 256)
        if (has_suffix(e->d_name, ".model") && (names[n] = strdup(e->d_name)) != NULL)
            n++;
    closedir(dd);
    qsort(names, n, sizeof(char *), cmp_str);
    return n;
}

int hca_model_for_pmu(const char *pmu, char *path, size_t pathlen)
{
    if (!pmu || !*pmu)
        return -1;
    dir_list d;
    dirs(&d);
    for (int i = 0; i < d.n; i++) {
        char *names[256] = { NULL };
        size_t n = model_files(d.dir[i], names);
        int found = 0;
        for (size_t k = 0; k < n; k++) {
            char p[4096];
            snprintf(p, sizeof(p), "%s/%s", d.dir[i], names[k]);
            if (!found && matches_pmu(p, pmu)) {
                snprintf(path, pathlen, "%s", p);
                found = 1;
            }
            free(names[k]);
        }
        if (found)
            return 0;
    }
    return -1;
}

int hca_model_list(void (*each)(const char *name, const char *path, void *user), void *user)
{
    dir_list d;
    dirs(&d);
    char *seen[512];
    size_t nseen = 0;
    int count = 0;
    for (int i = 0; i < d.n; i++) {
        char *names[256] = { NULL };
        size_t n = model_files(d.dir[i], names);
        for (size_t k = 0; k < n; k++) {
            names[k][strlen(names[k]) - 6] = 0; /* without ".model" */
            size_t j = 0;
            while (j < nseen && strcmp(seen[j], names[k]) != 0)
                j++;
            if (j < nseen) { /* shadowed by a directory searched before */
                free(names[k]);
                continue;
            }
            char p[4096];
            snprintf(p, sizeof(p), "%s/%s.model", d.dir[i], names[k]);
            each(names[k], p, user);
            count++;
            if (nseen < sizeof(seen) / sizeof(seen[0]))
                seen[nseen++] = names[k];
            else
                free(names[k]);
        }
    }
    for (size_t j = 0; j < nseen; j++)
        free(seen[j]);
    return count;
}

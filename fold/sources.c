/* sources.c: finds the source files a trace names and reads their lines for
 * the summary and report.html (sources.h). Files are found by name once and
 * remembered; a file not found is counted, never an error. */
#include "sources.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hca_source_path.h"

typedef struct {
    char *name;  /* as the trace names it */
    char *found; /* the path opened, or NULL: not found */
    int asked;   /* a line of it was asked for */
} source_file;

struct fold_sources {
    char *trace_dir; /* the trace's directory, absolute (NULL: unknown) */
    char **dirs;
    size_t ndirs;
    source_file *files;
    size_t nfiles, cap;
};

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

fold_sources *fold_sources_new(const char *trace, const char *const *dirs, size_t ndirs)
{
    fold_sources *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    char dir[PATH_MAX];
    if (trace && realpath(trace, dir)) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        s->trace_dir = dup_str(dir[0] ? dir : "/");
        if (!s->trace_dir)
            goto fail;
    }
    s->dirs = ndirs ? calloc(ndirs, sizeof(char *)) : NULL;
    if (ndirs && !s->dirs)
        goto fail;
    for (; s->ndirs < ndirs; s->ndirs++)
        if (!(s->dirs[s->ndirs] = dup_str(dirs[s->ndirs])))
            goto fail;
    return s;
fail:
    fold_sources_free(s);
    return NULL;
}

void fold_sources_free(fold_sources *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ndirs; i++)
        free(s->dirs[i]);
    for (size_t i = 0; i < s->nfiles; i++) {
        free(s->files[i].name);
        free(s->files[i].found);
    }
    free(s->dirs);
    free(s->files);
    free(s->trace_dir);
    free(s);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/name normalized into path if that file exists. */
static int exists_below(const char *dir, const char *name, char *path, size_t len)
{
    return hca_source_path_join(dir, name, path, len) == 0 && is_file(path);
}

/* A relative name (older traces) below the trace's directory or a parent. */
static int below_trace(const fold_sources *s, const char *name, char *path, size_t len)
{
    if (!s->trace_dir || name[0] == '/')
        return 0;
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", s->trace_dir);
    for (;;) {
        if (exists_below(dir, name, path, len))
            return 1;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return dir[0] == '/' && dir[1] && exists_below("/", name, path, len);
        *slash = 0;
    }
}

/* The name's suffixes below each --source-dir, the longest first. */
static int below_source_dirs(const fold_sources *s, const char *name, char *path, size_t len)
{
    for (size_t d = 0; d < s->ndirs; d++)
        for (const char *tail = name; tail && *tail; tail = strchr(tail, '/')) {
            tail += strspn(tail, "/");
            if (*tail && exists_below(s->dirs[d], tail, path, len))
                return 1;
        }
    return 0;
}

static char *search(const fold_sources *s, const char *name)
{
    char path[PATH_MAX];
    if (is_file(name))
        return dup_str(name);
    if (below_trace(s, name, path, sizeof(path)) || below_source_dirs(s, name, path, sizeof(path)))
        return dup_str(path);
    return NULL;
}

static source_file *lookup(fold_sources *s, const char *name)
{
    for (size_t i = 0; i < s->nfiles; i++)
        if (strcmp(s->files[i].name, name) == 0)
            return &s->files[i];
    if (s->nfiles == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        source_file *grown = realloc(s->files, cap * sizeof(*grown));
        if (!grown)
            return NULL;
        s->files = grown;
        s->cap = cap;
    }
    source_file *f = &s->files[s->nfiles];
    f->name = dup_str(name);
    if (!f->name)
        return NULL;
    f->found = search(s, name);
    f->asked = 0;
    s->nfiles++;
    return f;
}

const char *fold_sources_find(fold_sources *s, const char *file)
{
    source_file *f = s && file && *file ? lookup(s, file) : NULL;
    return f ? f->found : NULL;
}

enum fold_source_line fold_sources_line(fold_sources *s, const char *file, unsigned line, char *buf, size_t len)
{
    if (!s || !file || !*file || line == 0 || len == 0)
        return FOLD_SOURCE_NO_LINE;
    source_file *f = lookup(s, file);
    if (!f)
        return FOLD_SOURCE_NO_LINE;
    f->asked = 1;
    FILE *src = f->found ? fopen(f->found, "r") : NULL;
    if (!src)
        return FOLD_SOURCE_NOT_FOUND;
    unsigned at = 1;
    enum fold_source_line found = FOLD_SOURCE_NO_LINE;
    while (fgets(buf, (int)(len < INT_MAX ? len : INT_MAX), src)) {
        size_t n = strlen(buf);
        int whole = n > 0 && buf[n - 1] == '\n';
        if (at == line) {
            while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
                buf[--n] = 0;
            found = FOLD_SOURCE_LINE_FOUND;
            break;
        }
        if (whole)
            at++;
    }
    fclose(src);
    if (found != FOLD_SOURCE_LINE_FOUND)
        buf[0] = 0;
    return found;
}

size_t fold_sources_missing(const fold_sources *s, const char **first)
{
    size_t n = 0;
    if (first)
        *first = NULL;
    for (size_t i = 0; s && i < s->nfiles; i++)
        if (s->files[i].asked && !s->files[i].found && n++ == 0 && first)
            *first = s->files[i].name;
    return n;
}

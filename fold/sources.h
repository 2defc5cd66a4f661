/* sources.h: the source files a trace names, found from where hcafold runs:
 * the path the trace records (absolute since the tracer joins DWARF's
 * compilation directory; older traces hold the compiler's relative name, looked
 * for below the trace's directory and its parents), else below the
 * --source-dir directories, else not found (said once, never an error). */
#ifndef FOLD_SOURCES_H
#define FOLD_SOURCES_H

#include <stddef.h>

typedef struct fold_sources fold_sources;

/* trace: the anchor file read (its directory and parents are searched for
 * relative names); dirs: the --source-dir directories, searched in order.
 * NULL when memory runs out. */
fold_sources *fold_sources_new(const char *trace, const char *const *dirs, size_t ndirs);
void fold_sources_free(fold_sources *s);

/* The file a trace names, as found from here (a path to open), or NULL. In a
 * --source-dir DIR, a recorded /a/b/c/x.c is looked for as DIR/a/b/c/x.c, then
 * DIR/b/c/x.c, DIR/c/x.c and DIR/x.c (the longest match first, as a
 * debugger's directory search). Each name is searched once. */
const char *fold_sources_find(fold_sources *s, const char *file);

enum fold_source_line {
    FOLD_SOURCE_LINE_FOUND = 0,
    FOLD_SOURCE_NO_LINE = -1,   /* no file or line to show (line 0, a module's path), or past the end */
    FOLD_SOURCE_NOT_FOUND = -2  /* the file is not found from here (counted by fold_sources_missing) */
};
/* The text of line `line` of `file` into buf (without its newline). */
enum fold_source_line fold_sources_line(fold_sources *s, const char *file, unsigned line, char *buf, size_t len);

/* How many distinct files whose lines were asked for are not found; *first
 * (if not NULL) the first of them. */
size_t fold_sources_missing(const fold_sources *s, const char **first);

#endif

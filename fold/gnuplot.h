/* gnuplot.h: quoting for gnuplot scripts and running gnuplot (gnuplot.c). */
#ifndef FOLD_GNUPLOT_H
#define FOLD_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

/* A gnuplot single-quoted string: quotes doubled. */
void fold_gp_quoted(FILE *f, const char *s);
/* A gnuplot double-quoted string (escapes interpreted: newlines allowed). */
void fold_gp_dquoted(FILE *f, const char *s);
/* Runs `gnuplot script` in dir (its output in dir/gnuplot.log). Returns 0, or
 * -1 with a one-line reason in err. */
int fold_run_gnuplot(const char *dir, const char *script, char *err, size_t errlen);
/* Creates the script dir/script (its path in path) and writes its first
 * line, "# SCRIPT: WHAT; run `gnuplot SCRIPT` in this directory". Returns
 * the open file, or NULL with a one-line reason in err. */
FILE *fold_gp_open(const char *dir, const char *script, const char *what, char *path, size_t pathlen, char *err,
                   size_t errlen);
/* Ends a script (`set output`), closes f, and renders it unless formats is 0.
 * path is the script's path, for messages. Returns 0 or -1 (err). */
int fold_gp_finish(FILE *f, const char *path, const char *dir, const char *script, unsigned formats, char *err,
                   size_t errlen);

#endif

/* outdir.h: hcafold's output directory: made, cleared of a previous fold's files,
 * its files created without following symbolic links. */
#ifndef FOLD_OUTDIR_H
#define FOLD_OUTDIR_H

#include <stdio.h>

/* Makes dir (and its parents; the ones made are 0755 whatever the umask) and removes
 * what an earlier fold wrote there (fold.json, report.html, compare.html, gnuplot.log, NN-<region>.csv/.gp/.png/
 * .svg), so that a re-fold leaves no plot of a region it no longer folds. Other files
 * are left alone. Returns 0, or -1 with errno set. */
int fold_outdir_prepare(const char *dir);

/* fopen(path, "w") that never writes through a symbolic link (O_NOFOLLOW): NULL with
 * errno ELOOP when path is one. */
FILE *fold_outdir_create(const char *path);

/* After the plots: an empty gnuplot.log is removed. */
void fold_outdir_finish(const char *dir);

#endif

/* gnuplot.c: what every plot writer needs from gnuplot: quoting strings for
 * its scripts and running it on a script in the output directory. */
#include "gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "outdir.h"

/* A gnuplot single-quoted string: quotes doubled. */
void fold_gp_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; s && *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* A gnuplot double-quoted string (escapes interpreted: newlines allowed). */
void fold_gp_dquoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '\n')
            fputs("\\n", f);
        else {
            if (*s == '"' || *s == '\\')
                fputc('\\', f);
            fputc(*s, f);
        }
    }
    fputc('"', f);
}

int fold_run_gnuplot(const char *dir, const char *script, char *err, size_t errlen)
{
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot run gnuplot: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        int log = open("gnuplot.log", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0644);
        if (log >= 0) {
            dup2(log, STDERR_FILENO);
            dup2(log, STDOUT_FILENO);
            close(log);
        }
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        snprintf(err, errlen, "gnuplot not found (Debian package gnuplot-nox); plots not rendered, scripts kept");
    else
        snprintf(err, errlen, "gnuplot failed on %s/%s (see %s/gnuplot.log)", dir, script, dir);
    return -1;
}


FILE *fold_gp_open(const char *dir, const char *script, const char *what, char *path, size_t pathlen, char *err,
                   size_t errlen)
{
    snprintf(path, pathlen, "%s/%s", dir, script);
    FILE *f = fold_outdir_create(path);
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    else
        fprintf(f, "# %s: %s; run `gnuplot %s` in this directory\n", script, what, script);
    return f;
}

int fold_gp_finish(FILE *f, const char *path, const char *dir, const char *script, unsigned formats, char *err,
                   size_t errlen)
{
    fputs("set output\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "writing %s failed", path);
        return -1;
    }
    return formats ? fold_run_gnuplot(dir, script, err, errlen) : 0;
}

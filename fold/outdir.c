/* outdir.c: hcafold's output directory (see outdir.h). */
#include "outdir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int make_one(const char *path)
{
    if (mkdir(path, 0755) == 0)
        return chmod(path, 0755);
    return errno == EEXIST ? 0 : -1;
}

static int make_dirs(const char *dir)
{
    char buf[PATH_MAX];
    if (strlen(dir) >= sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(buf, dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int rc = make_one(buf);
        *p = '/';
        if (rc != 0)
            return -1;
    }
    return make_one(buf);
}

/* A file name hcafold writes: fold.json, gnuplot.log, or a region's file
 * (two or more digits, '-', ..., .csv/.gp/.png/.svg). */
static int written_by_a_fold(const char *name)
{
    if (strcmp(name, "fold.json") == 0 || strcmp(name, "gnuplot.log") == 0 || strcmp(name, "report.html") == 0 ||
        strcmp(name, "compare.html") == 0)
        return 1;
    size_t digits = 0;
    while (isdigit((unsigned char)name[digits]))
        digits++;
    if (digits < 2 || name[digits] != '-')
        return 0;
    const char *ext = strrchr(name, '.');
    return ext && (strcmp(ext, ".csv") == 0 || strcmp(ext, ".gp") == 0 || strcmp(ext, ".png") == 0 ||
                   strcmp(ext, ".svg") == 0);
}

int fold_outdir_prepare(const char *dir)
{
    if (make_dirs(dir) != 0)
        return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    int bad = 0;
    const struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        if (!written_by_a_fold(e->d_name) || fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        /* regular files and symbolic links (unlinked, never followed) */
        if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && unlinkat(fd, e->d_name, 0) != 0 && errno != ENOENT)
            bad = 1;
    }
    closedir(d);
    return bad ? -1 : 0;
}

FILE *fold_outdir_create(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

void fold_outdir_finish(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/gnuplot.log", dir);
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
        unlink(path);
}

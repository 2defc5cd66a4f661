/* fd_app.c: test program (the user's, built without sanitizers): runs many
 * OpenMP parallel regions and prints the largest number of file descriptors
 * it saw open at once, so a test can check what the tracer adds per thread. */
#include <dirent.h>
#include <stdio.h>

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 3; /* ".", "..", and the directory itself */
}

int main(void)
{
    int most = 0;
    for (int it = 0; it < 60; it++) {
#pragma omp parallel
        {
            volatile double x = 0;
            for (int i = 0; i < 1000000; i++)
                x += i;
        }
        int n = open_fds();
        if (n > most)
            most = n;
    }
    printf("max_open_fds %d\n", most);
    return 0;
}

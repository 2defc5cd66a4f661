/* sites_app.c: a user region entered from 16 call sites, each N times
 * (tests/e2e/first_instance.sh). The first enter from a call site makes the
 * tracer look up the call path's new frame with libdw (tens to hundreds of
 * microseconds, after the enter's timestamp); the region itself is empty, so
 * in the program's own time every instance, the first of each site too,
 * lasts about a microsecond. Usage: sites_app [N] (default 20); prints the
 * regions entered, the same traced or not. */
#include <hcatrace.h>
#include <stdio.h>
#include <stdlib.h>

#define SITE(k)                               \
    __attribute__((noinline)) static void site##k(void) \
    {                                         \
        HCATRACE_BEGIN("site");               \
        HCATRACE_END("site");                 \
    }
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7)
SITE(8) SITE(9) SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15)

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    if (n < 1 || n > 1000000) {
        fprintf(stderr, "usage: sites_app [N]\n");
        return 2;
    }
    void (*const sites[])(void) = { site0, site1, site2,  site3,  site4,  site5,  site6,  site7,
                                    site8, site9, site10, site11, site12, site13, site14, site15 };
    int entered = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 16; k++) {
            sites[k]();
            entered++;
        }
    printf("sites_app: %d regions entered\n", entered);
    return 0;
}

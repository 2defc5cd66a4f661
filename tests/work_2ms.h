/* work_2ms.h: about 2 ms of work for the test programs (thin_app.c,
 * par_thin_app.c): until the calling thread's CPU clock has advanced that
 * far, so the time is the thread's own however loaded the machine is. */
#ifndef WORK_2MS_H
#define WORK_2MS_H

#include <time.h>

/* returns 1 (used, so the work is not optimized away) */
static long work_2ms(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    double x = 0;
    do {
        for (int i = 0; i < 1000; i++)
            x += 1e-9 * i;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 2000000L);
    return x > 0 ? 1 : 0;
}

#endif

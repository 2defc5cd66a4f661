/* hct_sleep.c: sleeps that the sampler does not cut short. The wall-clock
 * sampling timer (hct_sampling_wall.c) interrupts a thread asleep as well, and
 * the sleep system calls return EINTR after any handled signal, whatever
 * SA_RESTART says (signal(7)): sleep(1) would return after one sampling
 * period. These wrappers restart the sleep with the time left (or the same
 * deadline) when the only interruption was the sampler's, and return what the
 * C library returns otherwise; sleep and usleep are wrapped too because
 * glibc's call its internal nanosleep. A signal of the program's own that
 * lands together with a sample, in the same return to user space, is handled
 * but does not end the sleep. Other calls that a signal ends with EINTR
 * (poll, select, epoll_wait, sigsuspend, ...) are left to the program, as with
 * any signal (docs/configuration.md, "Sampling"). */
#include <dlfcn.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "hct_sleep.h"

/* sampling signals taken by this thread: a sleep interrupted while this did
 * not move was interrupted by another signal */
static HCT_TLS volatile unsigned long tls_interrupts;

/* set while the thread is inside a wrapped sleep */
static HCT_TLS volatile int tls_asleep;

void hct_sleep_interrupted(void)
{
    tls_interrupts++;
}

int hct_sleep_asleep(void)
{
    return tls_asleep;
}

typedef int (*clock_nanosleep_fn)(clockid_t, int, const struct timespec *, struct timespec *);

static int sleep_through_samples(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
    static clock_nanosleep_fn real;
    if (!real) {
        real = (clock_nanosleep_fn)dlsym(RTLD_NEXT, "clock_nanosleep");
        if (!real)
            return ENOSYS;
    }
    struct timespec left = *req, r = { 0, 0 };
    for (;;) {
        unsigned long before = tls_interrupts;
        tls_asleep = 1;
        int rc = real(clk, flags, &left, &r);
        tls_asleep = 0;
        if (rc != EINTR || tls_interrupts == before) {
            if (rc == EINTR && rem && !(flags & TIMER_ABSTIME))
                *rem = r;
            return rc;
        }
        if (!(flags & TIMER_ABSTIME))
            left = r;
    }
}

__attribute__((visibility("default"))) int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                                                           struct timespec *rem)
{
    return sleep_through_samples(clk, flags, req, rem);
}

/* Linux measures nanosleep on CLOCK_MONOTONIC */
__attribute__((visibility("default"))) int nanosleep(const struct timespec *req, struct timespec *rem)
{
    int rc = sleep_through_samples(CLOCK_MONOTONIC, 0, req, rem);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

__attribute__((visibility("default"))) int usleep(useconds_t us)
{
    struct timespec ts = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L };
    return nanosleep(&ts, NULL);
}

/* glibc's sleep: the seconds left, rounded to the nearest */
__attribute__((visibility("default"))) unsigned int sleep(unsigned int seconds)
{
    struct timespec ts = { (time_t)seconds, 0 }, rem = { 0, 0 };
    if (nanosleep(&ts, &rem) == 0)
        return 0;
    return (unsigned int)rem.tv_sec + (rem.tv_nsec >= 500000000L);
}

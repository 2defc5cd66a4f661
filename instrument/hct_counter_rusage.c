/* hct_counter_rusage.c: software counters read without perf events. task-clock
 * is the thread's CPU clock (the scheduler's sum_exec_runtime with the running
 * delta, as perf's task-clock), the fault and context-switch counts are the
 * thread's exact counts from getrusage(RUSAGE_THREAD) (its ru_utime/ru_stime
 * are not used: without the running delta they are wrong for short bursts).
 * cpu-clock is left to perf: it is a timer-based count of its own. */
#include "hct_counter_rusage.h"

#include <sys/resource.h>
#include <time.h>

int hct_rusage_source_of(const hct_event *ev)
{
    const struct perf_event_attr *a = &ev->attr;
    if (a->type != PERF_TYPE_SOFTWARE || a->exclude_user || a->config1 || a->config2)
        return HCT_RUSAGE_NONE;
    switch (a->config) {
    case PERF_COUNT_SW_TASK_CLOCK:
        return HCT_RUSAGE_THREAD_CPU;
    case PERF_COUNT_SW_PAGE_FAULTS:
        return HCT_RUSAGE_FAULTS;
    case PERF_COUNT_SW_PAGE_FAULTS_MIN:
        return HCT_RUSAGE_MINOR_FAULTS;
    case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
        return HCT_RUSAGE_MAJOR_FAULTS;
    case PERF_COUNT_SW_CONTEXT_SWITCHES:
        /* counted in user space only it would always be 0 (hct_events.c) */
        return a->exclude_kernel ? HCT_RUSAGE_NONE : HCT_RUSAGE_SWITCHES;
    default:
        return HCT_RUSAGE_NONE;
    }
}

const char *hct_rusage_source_text(int source)
{
    switch (source) {
    case HCT_RUSAGE_THREAD_CPU:
        return "read as clock_gettime(CLOCK_THREAD_CPUTIME_ID), not a perf event";
    case HCT_RUSAGE_FAULTS:
        return "read as getrusage(RUSAGE_THREAD) ru_minflt + ru_majflt, not a perf event (faults taken in the kernel "
               "on user memory included)";
    case HCT_RUSAGE_MINOR_FAULTS:
        return "read as getrusage(RUSAGE_THREAD) ru_minflt, not a perf event (faults taken in the kernel on user "
               "memory included)";
    case HCT_RUSAGE_MAJOR_FAULTS:
        return "read as getrusage(RUSAGE_THREAD) ru_majflt, not a perf event (faults taken in the kernel on user "
               "memory included)";
    case HCT_RUSAGE_SWITCHES:
        return "read as getrusage(RUSAGE_THREAD) ru_nvcsw + ru_nivcsw, not a perf event";
    default:
        return "perf event";
    }
}

int hct_rusage_set_make(const int *sources, int nevents, hct_rusage_set *r)
{
    if (nevents < 0 || nevents > HCT_MAX_SET_EVENTS)
        return -1;
    r->nevents = nevents;
    r->needs_clock = r->needs_rusage = 0;
    for (int k = 0; k < nevents; k++) {
        if (sources[k] == HCT_RUSAGE_NONE)
            return -1;
        r->source[k] = (uint8_t)sources[k];
        if (sources[k] == HCT_RUSAGE_THREAD_CPU)
            r->needs_clock = 1;
        else
            r->needs_rusage = 1;
    }
    return 0;
}

int hct_rusage_read(const hct_rusage_set *r, uint64_t *raw)
{
    struct timespec ts = { 0, 0 };
    struct rusage ru = { 0 };
    if (r->needs_clock && clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1;
    if (r->needs_rusage && getrusage(RUSAGE_THREAD, &ru) != 0)
        return -1;
    for (int k = 0; k < r->nevents; k++) {
        switch (r->source[k]) {
        case HCT_RUSAGE_THREAD_CPU:
            raw[k] = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
            break;
        case HCT_RUSAGE_FAULTS:
            raw[k] = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
            break;
        case HCT_RUSAGE_MINOR_FAULTS:
            raw[k] = (uint64_t)ru.ru_minflt;
            break;
        case HCT_RUSAGE_MAJOR_FAULTS:
            raw[k] = (uint64_t)ru.ru_majflt;
            break;
        default:
            raw[k] = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
            break;
        }
    }
    return r->nevents;
}

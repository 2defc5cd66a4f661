/* units.h: the units a person reads for counter rates, shared by the summary,
 * the plots, report.html and the comparison: a time counter (unit ns) per second
 * is the number of CPUs busy; instructions per second are MIPS; other counters
 * get an SI prefix (k, M, G) per second. */
#ifndef FOLD_UNITS_H
#define FOLD_UNITS_H

#include <stddef.h>

typedef struct {
    double scale;     /* events/s divided by this give the value shown */
    char name[48];    /* "CPUs busy", "MIPS", "M/s", "kB/s" */
    int cpus_busy;    /* 1 for a time counter */
} fold_rate_unit;

/* The unit for rates of the counter named `counter` ("instructions",
 * "INST_RETIRED:ANY_P", ...; may be NULL), of unit `unit` ("ns", "#", "", ...),
 * whose largest rate is max_rate events/s. */
fold_rate_unit fold_rate_unit_for(const char *counter, const char *unit, double max_rate);

/* "0.69 CPUs busy", "1523.4 MIPS", "689.3 M/s", "12.0 /s": one rate in its own unit. */
void fold_rate_format(const char *counter, const char *unit, double events_per_s, char *buf, size_t len);
/* "0.69 CPUs busy (0.66-0.72)": a rate and its interval, both in the rate's unit. */
void fold_rate_format_interval(const char *counter, const char *unit, double events_per_s, double low, double high,
                               char *buf, size_t len);

#endif

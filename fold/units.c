/* units.c: units of counter rates for people (units.h). */
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Instructions retired, by the generic name or the PMU's (libpfm4: INST_RETIRED:ANY_P,
 * skl::INST_RETIRED:ANY, ...). */
static int is_instructions(const char *counter)
{
    if (!counter)
        return 0;
    const char *base = strstr(counter, "::");
    base = base ? base + 2 : counter;
    return strcasecmp(base, "instructions") == 0 || strncasecmp(base, "INST_RETIRED:ANY", 16) == 0 ||
           strcasecmp(base, "INST_RETIRED") == 0;
}

/* The SI prefix for rates up to max_rate, chosen on the value as printed (one decimal), so
 * that 999.96 M/s is shown as 1.00 G/s, not 1000.0 M/s. */
static double si_scale(double max_rate, const char **prefix)
{
    static const struct {
        double scale;
        const char *prefix;
    } si[] = { { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } };
    for (size_t i = 0; i < sizeof(si) / sizeof(si[0]); i++)
        if (max_rate >= si[i].scale * 0.99995) {
            *prefix = si[i].prefix;
            return si[i].scale;
        }
    *prefix = "";
    return 1;
}

fold_rate_unit fold_rate_unit_for(const char *counter, const char *unit, double max_rate)
{
    fold_rate_unit u = { 1, "", 0 };
    const char *base = unit && strcmp(unit, "#") != 0 ? unit : "";
    if (strcmp(base, "ns") == 0) { /* ns of CPU time per second of wall time */
        u.scale = 1e9;
        u.cpus_busy = 1;
        snprintf(u.name, sizeof(u.name), "CPUs busy");
        return u;
    }
    if (is_instructions(counter)) { /* millions of instructions per second */
        u.scale = 1e6;
        snprintf(u.name, sizeof(u.name), "MIPS");
        return u;
    }
    const char *prefix = "";
    u.scale = si_scale(max_rate, &prefix);
    snprintf(u.name, sizeof(u.name), "%s%s/s", prefix, base);
    return u;
}

/* The printf format of a value in unit u: two decimals for CPUs busy and G; one for the
 * others, but two significant digits below 1 event/s, so that a small rate is not "0.0 /s". */
static const char *value_format(const fold_rate_unit *u, double events_per_s)
{
    if (u->cpus_busy || u->scale >= 1e9)
        return "%.2f";
    return u->scale == 1 && fabs(events_per_s) < 0.95 ? "%.2g" : "%.1f";
}

void fold_rate_format(const char *counter, const char *unit, double events_per_s, char *buf, size_t len)
{
    fold_rate_unit u = fold_rate_unit_for(counter, unit, events_per_s);
    char f[16];
    snprintf(f, sizeof(f), "%s %%s", value_format(&u, events_per_s));
    snprintf(buf, len, f, events_per_s / u.scale, u.name);
}

void fold_rate_format_interval(const char *counter, const char *unit, double events_per_s, double low, double high,
                               char *buf, size_t len)
{
    fold_rate_unit u = fold_rate_unit_for(counter, unit, events_per_s);
    const char *v = value_format(&u, events_per_s);
    char f[48];
    snprintf(f, sizeof(f), "%s %%s (%s-%s)", v, v, v);
    snprintf(buf, len, f, events_per_s / u.scale, u.name, low / u.scale, high / u.scale);
}

/* units.c: units of counter rates for people (units.h). */
#include "units.h"

#include <stdio.h>
#include <string.h>

fold_rate_unit fold_rate_unit_for(const char *unit, double max_rate)
{
    fold_rate_unit u = { 1, "", 0 };
    const char *base = unit && strcmp(unit, "#") != 0 ? unit : "";
    if (strcmp(base, "ns") == 0) { /* ns of CPU time per second of wall time */
        u.scale = 1e9;
        u.cpus_busy = 1;
        snprintf(u.name, sizeof(u.name), "CPUs busy");
        return u;
    }
    const char *prefix = "";
    if (max_rate >= 1e9) {
        u.scale = 1e9;
        prefix = "G";
    } else if (max_rate >= 1e6) {
        u.scale = 1e6;
        prefix = "M";
    } else if (max_rate >= 1e3) {
        u.scale = 1e3;
        prefix = "k";
    }
    snprintf(u.name, sizeof(u.name), "%s%s/s", prefix, base);
    return u;
}

void fold_rate_format(const char *unit, double events_per_s, char *buf, size_t len)
{
    fold_rate_unit u = fold_rate_unit_for(unit, events_per_s);
    double v = events_per_s / u.scale;
    snprintf(buf, len, u.cpus_busy || u.scale >= 1e9 ? "%.2f %s" : "%.1f %s", v, u.name);
}

void fold_rate_format_interval(const char *unit, double events_per_s, double low, double high, char *buf,
                               size_t len)
{
    fold_rate_unit u = fold_rate_unit_for(unit, events_per_s);
    const char *f = u.cpus_busy || u.scale >= 1e9 ? "%.2f %s (%.2f-%.2f)" : "%.1f %s (%.1f-%.1f)";
    snprintf(buf, len, f, events_per_s / u.scale, u.name, low / u.scale, high / u.scale);
}

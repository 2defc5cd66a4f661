/* hct_config.c: parsing of the HCATRACE_* environment variables. Unknown names
 * and unknown values are reported (with the closest known name) and replaced by
 * their defaults, so a typo never stops the application. */
#include "hct_config.h"

#include "hca_names.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every variable the tracer knows, also those read by other parts. */
static const char *const known_names[] = {
    "HCATRACE_ENABLE", "HCATRACE_DIR", "HCATRACE_VERBOSE", "HCATRACE_CALLSITES", "HCATRACE_NODE_SYMBOLS",
    "HCATRACE_CLOCK_SYNC_ROUNDS", "HCATRACE_COUNTERS", "HCATRACE_COUNTERS_ROTATE",
    "HCATRACE_SAMPLING", "HCATRACE_SAMPLING_BUFFER", "HCATRACE_SAMPLING_CLOCK", "HCATRACE_MODEL",
    "HCATRACE_COUNTER_SOURCE",
    "HCATRACE_MODEL_PATH", "HCATRACE_TOTAL_MEMORY", "HCATRACE_THIN", "HCATRACE_FILTER",
};

static hct_filter filter; /* HCATRACE_FILTER's patterns */

static const char *closest_name(const char *name)
{
    const char *best = known_names[0];
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < sizeof(known_names) / sizeof(known_names[0]); i++) {
        size_t d = hca_edit_distance(name, known_names[i]);
        if (d < best_d) {
            best_d = d;
            best = known_names[i];
        }
    }
    return best;
}

static int parse_bool(const char *v, int *out)
{
    static const char *const yes[] = { "1", "on", "yes", "true" };
    static const char *const no[] = { "0", "off", "no", "false" };
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(v, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcmp(v, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

static int parse_uint(const char *v, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (!*v || *end || x < lo || x > hi)
        return -1;
    *out = (unsigned)x;
    return 0;
}

int hct_config_parse_duration(const char *v, uint64_t default_unit_ns, uint64_t *ns)
{
    static const struct {
        const char *suffix;
        double ns;
    } units[] = { { "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
    char *end;
    double x = strtod(v, &end);
    if (end == v || !isfinite(x) || x < 0 || !isdigit((unsigned char)*v))
        return -1;
    double unit = (double)default_unit_ns;
    if (*end) {
        unit = 0;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
            if (strcmp(end, units[i].suffix) == 0)
                unit = units[i].ns;
        if (unit == 0)
            return -1;
    }
    double r = x * unit;
    if (r > 1e18)
        return -1;
    *ns = (uint64_t)(r + 0.5);
    return 0;
}

static int is_off(const char *v)
{
    return strcmp(v, "off") == 0 || strcmp(v, "0") == 0 || strcmp(v, "no") == 0 || strcmp(v, "false") == 0;
}

/* "off" | "on" | PERIOD[,JITTER]; PERIOD in ms by default (1 ms .. 10 s, a bare number
 * at most HCT_SAMPLING_BARE_MAX_MS),
 * JITTER as a percentage ("10", "10%") or a duration ("2ms"), at most 50 %. */
int hct_config_parse_sampling(const char *v, int *on, uint64_t *period_ns, unsigned *jitter_pct)
{
    if (is_off(v)) {
        *on = 0;
        return 0;
    }
    uint64_t period = HCT_DEFAULT_SAMPLING_PERIOD_NS;
    unsigned jitter = HCT_DEFAULT_SAMPLING_JITTER_PCT;
    if (strcmp(v, "on") != 0 && strcmp(v, "1") != 0 && strcmp(v, "yes") != 0 && strcmp(v, "true") != 0) {
        char buf[64];
        if (strlen(v) >= sizeof(buf))
            return -1;
        strcpy(buf, v);
        char *comma = strchr(buf, ',');
        if (comma)
            *comma++ = 0;
        if (hct_config_parse_duration(buf, 1000000ull, &period) != 0 || period < 1000000ull ||
            period > 10000000000ull)
            return -1;
        /* a bare number is in ms up to HCT_SAMPLING_BARE_MAX_MS: 1000 may well mean 1000 Hz or
         * 1000 us; longer periods need their unit ("1s") */
        if (strspn(buf, "0123456789.") == strlen(buf) && period > HCT_SAMPLING_BARE_MAX_MS * 1000000ull)
            return -1;
        if (comma) {
            size_t n = strlen(comma);
            char *end;
            if (n > 0 && comma[n - 1] == '%') {
                comma[n - 1] = 0;
                unsigned long p = strtoul(comma, &end, 10);
                if (!*comma || *end || p > 50)
                    return -1;
                jitter = (unsigned)p;
            } else if (n > 0 && strspn(comma, "0123456789") == n) {
                unsigned long p = strtoul(comma, &end, 10);
                if (p > 50)
                    return -1;
                jitter = (unsigned)p;
            } else {
                uint64_t j;
                if (hct_config_parse_duration(comma, 1000000ull, &j) != 0 || j * 2 > period)
                    return -1;
                jitter = (unsigned)((j * 100 + period / 2) / period);
            }
        }
    }
    *on = 1;
    *period_ns = period;
    *jitter_pct = jitter;
    return 0;
}

/* "off" | N (region instances) | DURATION (with a unit) | "N,DURATION" */
int hct_config_parse_rotate(const char *v, unsigned *instances, uint64_t *ns)
{
    unsigned n = 0;
    uint64_t t = 0;
    if (!is_off(v)) {
        char buf[64];
        if (!*v || strlen(v) >= sizeof(buf))
            return -1;
        strcpy(buf, v);
        for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
            if (strspn(item, "0123456789") == strlen(item)) {
                unsigned long x = strtoul(item, NULL, 10);
                if (x < 1 || x > 1000000000ul || n)
                    return -1;
                n = (unsigned)x;
            } else if (hct_config_parse_duration(item, 0, &t) != 0 || t < 1000000ull) {
                return -1;
            }
        }
        if (!n && !t)
            return -1;
    }
    *instances = n;
    *ns = t;
    return 0;
}

int hct_config_parse_thin(const char *v, unsigned *full, uint64_t *ns)
{
    if (is_off(v)) {
        *full = 0;
        *ns = 0;
        return 0;
    }
    char n[32];
    size_t len = strcspn(v, ",");
    if (len == 0 || len >= sizeof(n))
        return -1;
    memcpy(n, v, len);
    n[len] = 0;
    if (parse_uint(n, 1, 1000000000u, full) != 0)
        return -1;
    *ns = HCT_DEFAULT_THIN_NS;
    return v[len] == ',' ? hct_config_parse_duration(v + len + 1, 1000, ns) : 0;
}

int hct_config_read(hct_config *cfg, char *const *envp, void (*report)(const char *line))
{
    char line[512];
    int problems = 0;
    cfg->enable = 1;
    cfg->verbose = 0;
    cfg->callsites = 1;
    cfg->node_symbols = 1;
    cfg->dir = NULL;
    cfg->clock_sync_rounds = 10;
    cfg->counters = NULL;
    cfg->counters_off = 0;
    cfg->model = NULL;
    cfg->rotate_instances = 0;
    cfg->rotate_ns = HCT_DEFAULT_ROTATE_NS;
    cfg->sampling = 1;
    cfg->sampling_period_ns = HCT_DEFAULT_SAMPLING_PERIOD_NS;
    cfg->sampling_jitter_pct = HCT_DEFAULT_SAMPLING_JITTER_PCT;
    cfg->sampling_buffer_kib = HCT_DEFAULT_SAMPLING_BUFFER_KIB;
    cfg->total_memory_mib = HCT_DEFAULT_TOTAL_MEMORY_MIB;
    cfg->total_memory_set = 0;
    cfg->thin_full = HCT_DEFAULT_THIN_FULL;
    cfg->thin_ns = HCT_DEFAULT_THIN_NS;
    cfg->thin_cost = 1;
    cfg->filter = NULL;
    int filter_bad = 0;
    cfg->sampling_clock = HCT_DEFAULT_SAMPLING_CLOCK;
    cfg->counter_source = HCT_COUNTER_SOURCE_AUTO;
    for (char *const *e = envp; e && *e; e++) {
        if (strncmp(*e, "HCATRACE_", 9) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        char name[64];
        size_t nlen = (size_t)(eq - *e);
        if (nlen >= sizeof(name))
            nlen = sizeof(name) - 1;
        memcpy(name, *e, nlen);
        name[nlen] = 0;
        const char *v = eq + 1;
        int bad = 0;
        unsigned u;
        if (strcmp(name, "HCATRACE_ENABLE") == 0) {
            bad = parse_bool(v, &cfg->enable);
        } else if (strcmp(name, "HCATRACE_CALLSITES") == 0) {
            bad = parse_bool(v, &cfg->callsites);
        } else if (strcmp(name, "HCATRACE_NODE_SYMBOLS") == 0) {
            bad = parse_bool(v, &cfg->node_symbols);
        } else if (strcmp(name, "HCATRACE_VERBOSE") == 0) {
            bad = parse_uint(v, 0, 2, &u);
            if (!bad)
                cfg->verbose = (int)u;
        } else if (strcmp(name, "HCATRACE_CLOCK_SYNC_ROUNDS") == 0) {
            bad = parse_uint(v, 1, 1000, &u);
            if (!bad)
                cfg->clock_sync_rounds = u;
        } else if (strcmp(name, "HCATRACE_COUNTERS") == 0) {
            cfg->counters_off = !*v || strcmp(v, "off") == 0 || strcmp(v, "none") == 0;
            cfg->counters = cfg->counters_off ? NULL : v;
        } else if (strcmp(name, "HCATRACE_MODEL") == 0) {
            cfg->model = *v ? v : NULL;
        } else if (strcmp(name, "HCATRACE_MODEL_PATH") == 0) {
            /* read where models are looked up (src/hca_model_path.c) */
        } else if (strcmp(name, "HCATRACE_COUNTERS_ROTATE") == 0) {
            unsigned n;
            uint64_t t;
            bad = hct_config_parse_rotate(v, &n, &t);
            if (!bad) {
                cfg->rotate_instances = n;
                cfg->rotate_ns = t;
            }
        } else if (strcmp(name, "HCATRACE_SAMPLING") == 0) {
            int on;
            uint64_t p;
            unsigned j;
            bad = hct_config_parse_sampling(v, &on, &p, &j);
            if (!bad) {
                cfg->sampling = on;
                if (on) {
                    cfg->sampling_period_ns = p;
                    cfg->sampling_jitter_pct = j;
                }
            }
        } else if (strcmp(name, "HCATRACE_SAMPLING_BUFFER") == 0) {
            bad = parse_uint(v, 64, 1048576, &u);
            if (!bad)
                cfg->sampling_buffer_kib = u;
        } else if (strcmp(name, "HCATRACE_TOTAL_MEMORY") == 0) {
            bad = parse_uint(v, HCT_MIN_TOTAL_MEMORY_MIB, 1048576, &u);
            if (!bad) {
                cfg->total_memory_mib = u;
                cfg->total_memory_set = 1;
            }
        } else if (strcmp(name, "HCATRACE_THIN") == 0) {
            unsigned n;
            uint64_t t;
            bad = hct_config_parse_thin(v, &n, &t);
            if (!bad) {
                cfg->thin_full = n;
                cfg->thin_ns = t;
                cfg->thin_cost = 0; /* the user's N is the N */
            }
        } else if (strcmp(name, "HCATRACE_FILTER") == 0) {
            char why[300];
            if (!*v) {
                cfg->filter = NULL;
            } else if (hct_filter_parse(&filter, v, why, sizeof(why)) == 0) {
                cfg->filter = &filter;
            } else {
                /* a filter is what the user wants left out: no trace rather than a wrong one */
                snprintf(line, sizeof(line), "invalid HCATRACE_FILTER (%s); running untraced", why);
                report(line);
                problems++;
                filter_bad = 1;
                continue;
            }
        } else if (strcmp(name, "HCATRACE_SAMPLING_CLOCK") == 0) {
            if (strcmp(v, HCT_CLOCK_NAME(HCT_CLOCK_WALL)) == 0)
                cfg->sampling_clock = HCT_CLOCK_WALL;
            else if (strcmp(v, HCT_CLOCK_NAME(HCT_CLOCK_CPU)) == 0)
                cfg->sampling_clock = HCT_CLOCK_CPU;
            else
                bad = 1;
        } else if (strcmp(name, "HCATRACE_COUNTER_SOURCE") == 0) {
            if (strcmp(v, "auto") == 0)
                cfg->counter_source = HCT_COUNTER_SOURCE_AUTO;
            else if (strcmp(v, "perf") == 0)
                cfg->counter_source = HCT_COUNTER_SOURCE_PERF;
            else
                bad = 1;
        } else if (strcmp(name, "HCATRACE_DIR") == 0) {
            if (!*v)
                bad = 1;
            else
                cfg->dir = v;
        } else {
            snprintf(line, sizeof(line), "unknown variable %s (did you mean %s?); ignored", name,
                     closest_name(name));
            report(line);
            problems++;
            continue;
        }
        if (bad) {
            snprintf(line, sizeof(line), "invalid value '%.200s' for %s; using the default", v, name);
            report(line);
            problems++;
        }
    }
    if (filter_bad)
        cfg->enable = 0;
    return problems;
}

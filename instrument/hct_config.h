/* hct_config.h: the tracer's configuration, read once from HCATRACE_* variables
 * (documented in docs/configuration.md and hcatrace(1)). */
#ifndef HCT_CONFIG_H
#define HCT_CONFIG_H

typedef struct {
    int enable;        /* HCATRACE_ENABLE: 0 leaves the program untraced */
    int verbose;       /* HCATRACE_VERBOSE: 0 quiet, 1 summary, 2 details */
    int callsites;     /* HCATRACE_CALLSITES: record the caller of each MPI call */
    const char *dir;   /* HCATRACE_DIR: experiment directory, or NULL */
    unsigned clock_sync_rounds; /* HCATRACE_CLOCK_SYNC_ROUNDS: ping-pongs per peer */
} hct_config;

/* Reads the environment into cfg (defaults first). Each problem is reported
 * through report(line) as one line; the returned value is the number of
 * problems. Unknown values fall back to the default. */
int hct_config_read(hct_config *cfg, char *const *envp, void (*report)(const char *line));

#endif

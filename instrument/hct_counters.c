/* hct_counters.c: the counters' setup at load, with perf_event_open: find out
 * what this machine counts (CPU PMU or not), load the model of HCATRACE_MODEL
 * and pack its events into counter sets (hct_counter_model.c), resolve
 * HCATRACE_COUNTERS into more sets, build them as the kernel allows
 * (hct_counter_sets.c: one perf group and one OTF2 MetricClass each,
 * instructions and cycles in every set when the PMU has them) and say once
 * what is missing. Per thread: hct_counter_read.c (open, read) and
 * hct_counter_rotation.c (values written, sets rotated at boundaries). */
#include "hct_counter_model.h"
#include "hct_counter_pmu.h"
#include "hct_counter_sets.h"
#include "hct_diag.h"
#include "hct_scratch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_PMU_SETS "instructions,cycles,branch-misses,cache-misses"
#define DEFAULT_SW_SETS "task-clock,page-faults,context-switches"
/* context-switches counts in the kernel (hct_events.c): where that is not
 * allowed (perf_event_paranoid > 1 without CAP_PERFMON) it is left out */
#define DEFAULT_SW_SETS_USER "task-clock,page-faults"

/* Resolves and opens the counters of `sets` into want[*nwant...], saying once why each
 * one that cannot be counted is left out (hardware events without a PMU are counted
 * in *hw_missing, said in the no-PMU line). Returns the number of counters kept. */
static int resolve_sets(const hct_set_spec *sets, hct_pending_set *want, int *nwant, int *hw_missing)
{
    char why[256];
    int kept = 0;
    for (int i = 0; i < sets->nsets; i++) {
        hct_pending_set *s = &want[*nwant];
        memset(s, 0, sizeof(*s));
        for (int k = 0; k < sets->nevents[i]; k++) {
            const char *name = sets->names[i][k];
            hct_event ev;
            int rc = hct_event_resolve(name, &ev, why, sizeof(why));
            if ((rc == HCT_EV_OK && ev.hardware && !hct_ctr.has_pmu) || (rc == HCT_EV_OTHER_PMU && !hct_ctr.has_pmu)) {
                (*hw_missing)++; /* said once, in the no-PMU line */
            } else if (rc == HCT_EV_OK) {
                int e = hct_ctr_open_alone(&ev);
                if (e == 0) {
                    hct_ctr_pending_add(s, &ev, -1);
                } else {
                    char buf[256];
                    hct_config_problem("counter '%s' cannot be counted here (%s); ignored", name,
                                       hct_ctr_open_error(e, buf, sizeof(buf)));
                }
            } else if (rc == HCT_EV_OTHER_PMU || rc == HCT_EV_INVALID) {
                hct_config_problem("counter '%s' is not usable (%s); ignored", name, why);
            } else {
                char closest[300];
                hct_event_closest(name, closest, sizeof(closest), 3);
                hct_config_problem("unknown counter '%s' (closest known: %s); ignored", name, closest);
            }
        }
        kept += s->nevents;
        if (s->nevents)
            (*nwant)++;
    }
    return kept;
}

static void setup(void)
{
    if (hct.cfg.counters_off) {
        if (hct.cfg.model)
            hct_config_problem("HCATRACE_MODEL=%.200s ignored: HCATRACE_COUNTERS is off", hct.cfg.model);
        return;
    }
    hct_event instructions, cycles, task_clock;
    char why[256], reason[256] = "";
    hct_event_resolve("instructions", &instructions, why, sizeof(why));
    hct_event_resolve("cycles", &cycles, why, sizeof(why));
    hct_event_resolve("task-clock", &task_clock, why, sizeof(why));
    int err = hct_ctr_open_alone(&instructions);
    hct_ctr.has_pmu = err == 0;
    if (err == ENOENT || err == ENODEV || err == EOPNOTSUPP)
        snprintf(reason, sizeof(reason), "no CPU PMU: perf_event_open of instructions: %s", strerror(err));
    else if (err)
        hct_ctr_open_error(err, reason, sizeof(reason));
    int sw_err = hct_ctr_open_alone(&task_clock);
    if (sw_err) {
        char buf[256];
        hct_config_problem("no counters (%s); recording time and call stacks", hct_ctr_open_error(sw_err, buf, sizeof(buf)));
        return;
    }
    /* the core PMU: now for a model's packing and in the process that will be rank 0
     * (it writes the name), else never (hct_counter_pmu.h) */
    int ncntrs = 0, nfixed = 0, have_core = 0;
    if (hct.cfg.model || hct.env_rank == 0)
        have_core = hct_ctr_pmu_detect(&ncntrs, &nfixed);
    else
        hct_ctr_pmu_defer();
    hct_event base[2] = { instructions, cycles };
    int nbase = hct_ctr.has_pmu ? 2 : 0;

    /* about 280 KiB: not from malloc (hct_scratch.h) */
    const size_t want_bytes = (HCT_MAX_SETS + HCT_MAX_SPEC_SETS) * sizeof(hct_pending_set);
    hct_pending_set *want = hct_scratch_alloc(want_bytes);
    if (!want) {
        hct_config_problem("no counters (out of memory); recording time and call stacks");
        return;
    }
    int nwant = 0;
    hct_model_result mr;
    memset(&mr, 0, sizeof(mr));
    hca_model *model = hct.cfg.model ? hct_ctr_load_model(hct.cfg.model, hct_ctr_pmu_name(), have_core) : NULL;
    if (model) {
        hct_pmu_caps caps;
        if (have_core)
            hct_pmu_caps_make(hct_ctr_pmu_name(), ncntrs, nfixed, hct_cpu_has_smt(), hct_ctr.has_pmu, &caps);
        else
            hct_pmu_caps_unknown(hct_ctr.has_pmu, &caps);
        nwant = hct_ctr_model_sets(model, base, nbase, &caps, want, HCT_MAX_SETS, &mr);
    }
    int model_counts = nwant > 0;

    const char *spec = hct.cfg.counters;
    hct_set_spec sets;
    int using_defaults = 0;
    int spec_rc = spec ? hct_set_spec_parse(spec, &sets, why, sizeof(why)) : 0;
    if (spec && (spec_rc != 0 || sets.nsets == 0)) {
        hct_config_problem("invalid value '%.200s' for HCATRACE_COUNTERS (%s); %s", spec,
                           spec_rc != 0 ? why : "no event",
                           model_counts ? "counting the model's events only" : "using the default counters");
        spec = NULL;
    }
    if (!spec) {
        sets.nsets = 0;
        if (!model_counts) {
            using_defaults = 1;
            const char *defaults = DEFAULT_PMU_SETS;
            hct_event cs;
            if (!hct_ctr.has_pmu)
                defaults = hct_event_resolve("context-switches", &cs, why, sizeof(why)) == 0 &&
                                   hct_ctr_open_alone(&cs) == 0
                               ? DEFAULT_SW_SETS
                               : DEFAULT_SW_SETS_USER;
            hct_set_spec_parse(defaults, &sets, why, sizeof(why));
        }
    }
    int hw_missing = 0;
    int kept = resolve_sets(&sets, want, &nwant, &hw_missing);
    if (spec && !kept && !model_counts) {
        /* not one of them: the run keeps what it would have recorded without them */
        hct_config_problem("no counter of HCATRACE_COUNTERS='%.200s' can be counted here; using the default counters",
                           spec);
        using_defaults = 1;
        hct_set_spec_parse(hct_ctr.has_pmu ? DEFAULT_PMU_SETS : DEFAULT_SW_SETS, &sets, why, sizeof(why));
        resolve_sets(&sets, want, &nwant, &hw_missing);
    }
    if (!hct_ctr.has_pmu && (using_defaults || hw_missing || mr.no_pmu))
        hct_config_problem("no hardware counters (%s); recording time, software events and call stacks", reason);

    int full = hct_ctr_build_sets(want, nwant, base, nbase);
    if (full)
        hct_config_problem("more than %d counter sets; the last ones are left out", HCT_MAX_SETS);
    if (model) {
        hct_ctr_model_report(model, &mr, full, using_defaults);
        hca_model_free(model);
    }
    free(mr.member);
    free(mr.why);
    hct_scratch_free(want, want_bytes);
    hct_ctr_choose_source();
    hct_ctr_define_sets();
    int nfds = 0;
    for (int i = 0; i < hct_ctr.nsets; i++)
        nfds += hct_ctr.set[i].nevents;
    hct_ctr.lazy = nfds > LAZY_FDS && !hct_ctr.no_perf;
}

void hct_counters_setup(void)
{
    setup();
    hct_events_release(); /* libpfm4 is not needed again: its pages go (hct_pfm.h) */
}

int hct_counters_nsets(void)
{
    return hct_ctr.nsets;
}

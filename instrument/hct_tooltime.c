/* hct_tooltime.c: the tracer's own time on each thread as trace records: one
 * metric class "tool:" with two members (hca_schema.h), running totals of the
 * wall-clock and CPU ns the thread spent in the tracer up to the timestamp of
 * the boundary or sample they are written with. What adds to the totals: the
 * sampling interrupt (hct_sampling.c: from the counter's overflow to the
 * re-armed timer) and each region boundary (hct_boundary.c: draining samples,
 * reading and writing counters). */
#include "hct_tooltime.h"

#include "hct_diag.h"

static hca_ref tool_class = HCA_UNDEF;
HCT_TLS _Atomic uint32_t *hct_tool_team_flag;

void hct_tool_setup(void)
{
    static const char *const names[HCA_NTOOL] = HCA_TOOL_NAMES;
    static const char *const descriptions[HCA_NTOOL] = {
        [HCA_TOOL_MEMBER_TIME] = "wall-clock time this thread spent in the tracer so far (sampling interrupts, "
                                 "region boundaries)",
        [HCA_TOOL_MEMBER_CPU] = "CPU time of this thread spent in the tracer so far",
    };
    hca_ref refs[HCA_NTOOL];
    for (int i = 0; i < HCA_NTOOL; i++) {
        refs[i] = hca_defs_metric_member(&hct.defs, names[i], descriptions[i], HCA_UNIT_NS, OTF2_METRIC_TYPE_OTHER,
                                         OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64);
        if (refs[i] == HCA_UNDEF)
            return;
    }
    tool_class = hca_defs_metric_class(&hct.defs, HCA_NTOOL, refs, OTF2_METRIC_SYNCHRONOUS);
}

void hct_tool_write(hct_thread *t, uint64_t ts, uint64_t wall, uint64_t cpu)
{
    if (tool_class == HCA_UNDEF)
        return;
    OTF2_Type types[HCA_NTOOL] = { OTF2_TYPE_UINT64, OTF2_TYPE_UINT64 };
    OTF2_MetricValue values[HCA_NTOOL];
    values[HCA_TOOL_MEMBER_TIME].unsigned_int = wall;
    values[HCA_TOOL_MEMBER_CPU].unsigned_int = cpu;
    hct_otf2_check(t, OTF2_EvtWriter_Metric(t->writer, NULL, ts, tool_class, HCA_NTOOL, types, values));
}

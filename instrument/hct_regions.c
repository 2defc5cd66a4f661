/* hct_regions.c: the region definition of each instrumented region key (the
 * intercepted MPI functions, user markers, OpenMP constructs and parallel
 * regions), and per location what thinning left out of each. */
#include "hct_regions.h"

#include "hct_markers.h"
#include "hct_mpi.h"
#include "hct_openmp.h"

hca_ref hct_region_def(hca_defs *d, uint32_t key)
{
    static const struct {
        const char *name;
        OTF2_RegionRole role;
    } mpi[] = {
#define HCT_DEF(name, role) { "MPI_" #name, OTF2_REGION_ROLE_##role },
        HCT_MPI_FUNCTIONS(HCT_DEF)
#undef HCT_DEF
    };
    if (key < HCT_MPI_NFUNCTIONS)
        return hca_defs_region(d, mpi[key].name, HCA_KIND_MPI, "", 0, 0, mpi[key].role, OTF2_PARADIGM_MPI);
    if (key >= HCT_OMP_KEY_BASE && key < HCT_OMP_KEY_END) {
        hca_ref r = hct_omp_region_def(d, key);
        if (r != HCA_UNDEF)
            return r;
    }
    const char *user = hct_marker_name(key);
    if (user)
        return hca_defs_region(d, user, HCA_KIND_USER, "", 0, 0, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER);
    return hca_defs_region(d, "unknown region", HCA_KIND_USER, "", 0, 0, OTF2_REGION_ROLE_UNKNOWN,
                           OTF2_PARADIGM_UNKNOWN);
}

int hct_regions_define_thinned(void)
{
    uint32_t n = atomic_load(&hct.nthreads);
    for (uint32_t i = 0; i < n; i++) {
        const hct_thread *t = hct.threads[i];
        if (!t || !t->has_location)
            continue;
        for (int k = 0; k < HCT_THIN_SLOTS; k++) {
            const hct_thin_slot *s = &t->thin.keys.slot[k];
            if (s->key == 0 || s->thinned == 0)
                continue;
            hca_ref region = hct_region_def(&hct.defs, s->key - 1);
            if (region == HCA_UNDEF ||
                hca_defs_thinned(&hct.defs, t->location_id, region, s->thinned, s->time_ns) == HCA_UNDEF)
                return -1;
        }
    }
    return 0;
}

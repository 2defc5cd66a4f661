/* hct_regions.c: the region definition of each instrumented region key (the
 * intercepted MPI functions, user markers, OpenMP constructs and parallel regions). */
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

/* hct_launcher.c: the names of MPI launchers and daemons (Open MPI, PRRTE,
 * MPICH/Hydra, Slurm) in which libhcatrace.so does nothing. */
#include "hct_launcher.h"

#include <string.h>

int hct_is_launcher(const char *name)
{
    static const char *const exact[] = {
        "mpirun", "mpiexec", "orterun", "orted", "prterun", "prted", "prte", "srun", "slurmstepd",
        "hydra_pmi_proxy", "pmi_proxy", "mpiexec.hydra", "mpiexec.openmpi", "mpirun.openmpi",
        "mpiexec.mpich", "mpirun.mpich", "ompi-server", "ompi_server", "pmix_server",
    };
    if (!name || !*name)
        return 0;
    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
        if (strcmp(name, exact[i]) == 0)
            return 1;
    return 0;
}

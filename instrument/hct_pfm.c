/* hct_pfm.c: libpfm4 loaded while the counters are set up (see hct_pfm.h). */
#include "hct_pfm.h"

#include <dlfcn.h>
#include <string.h>

#define PFM_SONAME "libpfm.so.4"

hct_pfm_api hct_pfm;

static void *handle;
static int state;  /* 0 not tried, 1 loaded and initialized, -1 unusable */
static int shared; /* loaded before us (the application's, PAPI's): never terminated by us */
static __typeof__(pfm_terminate) *terminate;

static int resolve(void)
{
    __typeof__(pfm_initialize) *initialize = (__typeof__(initialize))dlsym(handle, "pfm_initialize");
    terminate = (__typeof__(terminate))dlsym(handle, "pfm_terminate");
    hct_pfm.get_pmu_info = (__typeof__(hct_pfm.get_pmu_info))dlsym(handle, "pfm_get_pmu_info");
    hct_pfm.get_event_next = (__typeof__(hct_pfm.get_event_next))dlsym(handle, "pfm_get_event_next");
    hct_pfm.get_event_info = (__typeof__(hct_pfm.get_event_info))dlsym(handle, "pfm_get_event_info");
    hct_pfm.get_os_event_encoding =
        (__typeof__(hct_pfm.get_os_event_encoding))dlsym(handle, "pfm_get_os_event_encoding");
    hct_pfm.strerror = (__typeof__(hct_pfm.strerror))dlsym(handle, "pfm_strerror");
    if (!initialize || !terminate || !hct_pfm.get_pmu_info || !hct_pfm.get_event_next || !hct_pfm.get_event_info ||
        !hct_pfm.get_os_event_encoding || !hct_pfm.strerror)
        return -1;
    return initialize() == PFM_SUCCESS ? 0 : -1;
}

int hct_pfm_load(void)
{
    if (state == 0) {
        void *before = dlopen(PFM_SONAME, RTLD_NOW | RTLD_NOLOAD);
        shared = before != NULL;
        if (before)
            dlclose(before);
        handle = dlopen(PFM_SONAME, RTLD_NOW | RTLD_LOCAL);
        state = handle && resolve() == 0 ? 1 : -1;
        if (state < 0 && handle) {
            dlclose(handle);
            handle = NULL;
        }
    }
    return state > 0 ? 0 : -1;
}

void hct_pfm_unload(void)
{
    if (state > 0) {
        if (!shared)
            terminate();
        dlclose(handle); /* unmapped when no one else holds it */
    }
    handle = NULL;
    terminate = NULL;
    memset(&hct_pfm, 0, sizeof(hct_pfm));
    state = 0;
}

/* hct_self.c: where the tracer's own code lies in memory: the executable
 * segments of the loaded object that holds this file's code, found once
 * with dl_iterate_phdr. Sampled stacks leave those frames out, so that the
 * tracer's signal handler, its MPI wrappers and its OpenMP trampoline never
 * appear as the application's functions. */
#include "hct_self.h"

#include <link.h>

#define MAX_SEGMENTS 4

static struct {
    int n;
    uintptr_t lo[MAX_SEGMENTS], hi[MAX_SEGMENTS];
} self;

/* any object of this library: the loaded object holding it is ours */
static const char self_marker;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t here = (uintptr_t)data;
    int mine = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && here >= lo && here < lo + ph->p_memsz)
            mine = 1;
    }
    if (!mine)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && self.n < MAX_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            self.lo[self.n] = info->dlpi_addr + ph->p_vaddr;
            self.hi[self.n] = self.lo[self.n] + ph->p_memsz;
            self.n++;
        }
    }
    return 1;
}

void hct_self_locate(void)
{
    self.n = 0;
    dl_iterate_phdr(find_self, (void *)&self_marker);
}

int hct_self_contains(uintptr_t address)
{
    for (int i = 0; i < self.n; i++)
        if (address >= self.lo[i] && address < self.hi[i])
            return 1;
    return 0;
}

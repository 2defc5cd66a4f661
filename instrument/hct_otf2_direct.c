/* hct_otf2_direct.c: libotf2's import of malloc pointed at a function that refuses
 * OTF2's 4 MiB file buffer (see hct_otf2_direct.h). The import is the library's
 * own relocation slot (its GOT: a JUMP_SLOT, or a GLOB_DAT when built without a
 * PLT), found from its dynamic section as the loader left it; a slot in the
 * RELRO segment (bound at load) is made writable for the store and read-only
 * again. Only libotf2's calls go through it: the process's malloc is unchanged. */
#include "hct_otf2_direct.h"

#include <otf2/otf2.h>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* 64-bit ELF with RELA relocations only (Elf64_ types below), and only the
 * OTF2 whose file layer is known to write directly when its buffer is refused
 * (3.0: tests/unit/test_otf2_direct.c checks the files come out the same); any
 * other version buffers as it chooses */
#if OTF2_VERSION_MAJOR != 3 || OTF2_VERSION_MINOR != 0
#elif defined(__x86_64__)
#define JUMP_SLOT R_X86_64_JUMP_SLOT
#define GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define JUMP_SLOT R_AARCH64_JUMP_SLOT
#define GLOB_DAT R_AARCH64_GLOB_DAT
#endif

static atomic_ulong refused;

#if defined(JUMP_SLOT)
static void *otf2_malloc(size_t size)
{
    if (size == HCT_OTF2_FILE_BUFFER_SIZE) {
        atomic_fetch_add_explicit(&refused, 1, memory_order_relaxed);
        return NULL; /* OTF2 writes this piece, and every later one, directly */
    }
    return malloc(size);
}

#endif

unsigned long hct_otf2_direct_refused(void)
{
    return atomic_load(&refused);
}

#if defined(JUMP_SLOT)
typedef struct {
    char *base;             /* where the library is loaded (dladdr) */
    const Elf64_Dyn *dyn;   /* its dynamic section */
    uintptr_t relro_from, relro_to; /* pages made read-only after loading */
    int found;
} library;

static int find_library(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    library *lib = data;
    if (info->dlpi_addr != (uintptr_t)lib->base)
        return 0;
    long page = sysconf(_SC_PAGESIZE);
    for (Elf64_Half i = 0; i < info->dlpi_phnum; i++) {
        const Elf64_Phdr *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            lib->dyn = (const Elf64_Dyn *)(const void *)(lib->base + ph->p_vaddr);
        else if (ph->p_type == PT_GNU_RELRO) {
            /* the loader protects whole pages: those wholly inside the segment */
            uintptr_t from = (uintptr_t)lib->base + ph->p_vaddr;
            lib->relro_from = from & ~(uintptr_t)(page - 1);
            lib->relro_to = (from + ph->p_memsz) & ~(uintptr_t)(page - 1);
        }
    }
    lib->found = lib->dyn != NULL;
    return 1;
}

/* A dynamic entry's address: the loader relocates them in place on these
 * architectures; an unrelocated one is an offset from the base. */
static const void *dyn_address(const library *lib, Elf64_Addr v)
{
    uintptr_t base = (uintptr_t)lib->base;
    return lib->base + (v >= base ? v - base : v);
}

static int store(const library *lib, void **slot, void *value)
{
    uintptr_t at = (uintptr_t)slot;
    if (at < lib->relro_from || at >= lib->relro_to) {
        __atomic_store_n(slot, value, __ATOMIC_RELAXED);
        return 0;
    }
    long page = sysconf(_SC_PAGESIZE);
    char *p = (char *)slot - (at & (uintptr_t)(page - 1));
    if (mprotect(p, (size_t)page, PROT_READ | PROT_WRITE) != 0)
        return -1;
    __atomic_store_n(slot, value, __ATOMIC_RELAXED);
    mprotect(p, (size_t)page, PROT_READ);
    return 0;
}

/* Redirects every relocation of [rela, rela + bytes) that imports malloc. */
static int redirect(const library *lib, const Elf64_Rela *rela, size_t bytes, const Elf64_Sym *symtab,
                    const char *strtab)
{
    int n = 0;
    for (size_t i = 0; i < bytes / sizeof(*rela); i++) {
        unsigned long type = ELF64_R_TYPE(rela[i].r_info);
        if (type != JUMP_SLOT && type != GLOB_DAT)
            continue;
        const Elf64_Sym *sym = &symtab[ELF64_R_SYM(rela[i].r_info)];
        if (strcmp(strtab + sym->st_name, "malloc") != 0)
            continue;
        void **slot = (void **)(void *)(lib->base + rela[i].r_offset);
        if (*slot == (void *)otf2_malloc || store(lib, slot, (void *)otf2_malloc) == 0)
            n++;
    }
    return n;
}
#endif

int hct_otf2_direct_install(void)
{
#if defined(JUMP_SLOT)
    Dl_info where;
    if (dladdr((const void *)OTF2_Archive_Open, &where) == 0 || !where.dli_fbase)
        return -1;
    library lib = { .base = where.dli_fbase };
    dl_iterate_phdr(find_library, &lib);
    if (!lib.found)
        return -1;
    const Elf64_Rela *jmprel = NULL, *rela = NULL; /* the loader's view: read only */
    size_t jmprel_bytes = 0, rela_bytes = 0;
    const Elf64_Sym *symtab = NULL;
    const char *strtab = NULL;
    int rela_plt = 0;
    for (const Elf64_Dyn *d = lib.dyn; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_JMPREL:
            jmprel = (const Elf64_Rela *)dyn_address(&lib, d->d_un.d_ptr);
            break;
        case DT_PLTRELSZ:
            jmprel_bytes = d->d_un.d_val;
            break;
        case DT_PLTREL:
            rela_plt = d->d_un.d_val == DT_RELA;
            break;
        case DT_RELA:
            rela = (const Elf64_Rela *)dyn_address(&lib, d->d_un.d_ptr);
            break;
        case DT_RELASZ:
            rela_bytes = d->d_un.d_val;
            break;
        case DT_SYMTAB:
            symtab = (const Elf64_Sym *)dyn_address(&lib, d->d_un.d_ptr);
            break;
        case DT_STRTAB:
            strtab = (const char *)dyn_address(&lib, d->d_un.d_ptr);
            break;
        default:
            break;
        }
    }
    if (!symtab || !strtab)
        return -1;
    int n = 0;
    if (jmprel && rela_plt)
        n += redirect(&lib, jmprel, jmprel_bytes, symtab, strtab);
    if (rela)
        n += redirect(&lib, rela, rela_bytes, symtab, strtab);
    return n > 0 ? 0 : -1;
#else
    return -1;
#endif
}

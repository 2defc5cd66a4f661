/* hct_arch_generic.h: any other architecture for hct_arch.h: the interrupted
 * program counter is not known (a sample keeps the stack as unwound, the
 * handler's own frames included) and counters are read with read(). */
#ifndef HCT_ARCH_GENERIC_H
#define HCT_ARCH_GENERIC_H

#define HCT_ARCH_NAME "generic"
#define HCT_ARCH_HAS_PC 0
#define HCT_ARCH_USER_READ 0

static inline uintptr_t hct_arch_pc(const ucontext_t *uc)
{
    (void)uc;
    return 0;
}

#define HCT_ARCH_TICKS 0

#endif

/* hct_arch_x86_64.h: x86_64 for hct_arch.h: the program counter is gregs[REG_RIP]
 * of the signal context; counters are read with rdpmc, time with rdtsc. */
#ifndef HCT_ARCH_X86_64_H
#define HCT_ARCH_X86_64_H

#define HCT_ARCH_NAME "x86_64"
#define HCT_ARCH_HAS_PC 1
#define HCT_ARCH_USER_READ 1

static inline uintptr_t hct_arch_pc(const ucontext_t *uc)
{
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

static inline uint64_t hct_arch_pmc_read(uint32_t counter)
{
    uint32_t lo, hi;
    __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
    return lo | ((uint64_t)hi << 32);
}

static inline uint64_t hct_arch_timestamp(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return lo | ((uint64_t)hi << 32);
}

/* the time-stamp counter (usable when invariant: hct_ticks.c asks CPUID) */
#define HCT_ARCH_TICKS 1
static inline uint64_t hct_arch_ticks(void)
{
    return hct_arch_timestamp();
}

#endif

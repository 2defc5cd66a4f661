/* hct_arch_aarch64.h: aarch64 (Arm64, e.g. Neoverse) for hct_arch.h: the program
 * counter is uc_mcontext.pc of the signal context. Counters are read with
 * read() on the perf group: user-space reads (mrs of PMEVCNTR<n>_EL0 or
 * PMCCNTR_EL0, as the perf tools do) need the kernel's perf_user_access sysctl
 * (off by default) and events opened with the PMU's "rdpmc" attribute
 * (config1), and could not be verified without Arm hardware; read() gives the
 * same values at the cost of one system call per read. */
#ifndef HCT_ARCH_AARCH64_H
#define HCT_ARCH_AARCH64_H

#define HCT_ARCH_NAME "aarch64"
#define HCT_ARCH_HAS_PC 1
#define HCT_ARCH_USER_READ 0

static inline uintptr_t hct_arch_pc(const ucontext_t *uc)
{
    return (uintptr_t)uc->uc_mcontext.pc;
}

/* the generic timer's virtual count (readable at EL0 on Linux: the vDSO's clock) */
#define HCT_ARCH_TICKS 1
static inline uint64_t hct_arch_ticks(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
}

#endif

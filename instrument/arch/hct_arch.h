/* hct_arch.h: the one place that selects the architecture-specific code of the
 * tracer: the interrupted program counter from a signal's ucontext and the
 * user-space counter read (rdpmc) of the perf_event mmap page. Each
 * hct_arch_<arch>.h defines:
 *   HCT_ARCH_NAME            the architecture's name (for messages and docs)
 *   HCT_ARCH_HAS_PC          1 when hct_arch_pc() knows the interrupted address
 *   uintptr_t hct_arch_pc(const ucontext_t *uc)   that address, or 0
 *   HCT_ARCH_USER_READ       1 when counters can be read in user space; then also
 *   uint64_t hct_arch_pmc_read(uint32_t idx)      counter idx (perf's index - 1)
 *   uint64_t hct_arch_timestamp(void)             the clock of cap_user_time
 *   HCT_ARCH_TICKS           1 when the CPU has a counter of fixed rate readable in
 *                            user space; then also
 *   uint64_t hct_arch_ticks(void)                 that counter (hct_ticks.h)
 * All of them are async-signal-safe (the sampling handler calls them). */
#ifndef HCT_ARCH_H
#define HCT_ARCH_H

#include <stdint.h>
#include <ucontext.h>

/* -DHCT_ARCH_GENERIC builds the generic fallback anywhere (to test it on x86_64) */
#if defined(HCT_ARCH_GENERIC)
#include "hct_arch_generic.h"
#elif defined(__x86_64__)
#include "hct_arch_x86_64.h"
#elif defined(__aarch64__)
#include "hct_arch_aarch64.h"
#else
#include "hct_arch_generic.h"
#endif

#endif

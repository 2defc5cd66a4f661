/* pfm_arch.h: libpfm4 compiles the PMU tables of its own architecture only, so
 * the unit tests that force Intel or AMD PMUs (LIBPFM_FORCE_PMU) run on x86
 * builds; a build for another architecture (scripts/cross-aarch64 under
 * qemu-user) reports them as skipped. */
#ifndef PFM_ARCH_H
#define PFM_ARCH_H

#if defined(__x86_64__) || defined(__i386__)
#define PFM_X86_TABLES 1
#define NEEDS_X86_PFM_TABLES() ((void)0)
#else
#define PFM_X86_TABLES 0
#define NEEDS_X86_PFM_TABLES() skip()
#endif

#endif

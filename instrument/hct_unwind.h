/* hct_unwind.h: the registers an unwind starts from, captured without a
 * system call (issue 13; docs/benchmarks.md, "System calls per parallel
 * region"). libunwind's unw_getcontext saves the signal mask too (an
 * rt_sigprocmask per unwind); the tracer never resumes a context, so it needs
 * no mask: HCT_UNWIND_CONTEXT stores what unw_init_local reads on x86-64 (the
 * callee-saved registers, the stack pointer and an address in the calling
 * function), the other registers zero. */
#ifndef HCT_UNWIND_H
#define HCT_UNWIND_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <string.h>

#if defined(__x86_64__) && defined(REG_RIP)
/* The calling function's registers at this point into uc, for unw_init_local
 * (inlined, so that the frame is the caller's): what _Ux86_64_getcontext
 * stores but the signal mask and the floating-point state. */
#define HCT_UNWIND_CONTEXT(uc)                                                                          \
    do {                                                                                                \
        greg_t *g_ = (uc)->uc_mcontext.gregs;                                                           \
        memset(g_, 0, sizeof((uc)->uc_mcontext.gregs));                                                 \
        __asm__ volatile("movq %%rbx, %c[rbx](%0)\n\t"                                                  \
                         "movq %%rbp, %c[rbp](%0)\n\t"                                                  \
                         "movq %%r12, %c[r12](%0)\n\t"                                                  \
                         "movq %%r13, %c[r13](%0)\n\t"                                                  \
                         "movq %%r14, %c[r14](%0)\n\t"                                                  \
                         "movq %%r15, %c[r15](%0)\n\t"                                                  \
                         "movq %%rsp, %c[rsp](%0)\n\t"                                                  \
                         "leaq 0(%%rip), %%rax\n\t"                                                     \
                         "movq %%rax, %c[rip](%0)\n\t"                                                  \
                         :                                                                              \
                         : "r"(g_), [rbx] "i"(REG_RBX * 8), [rbp] "i"(REG_RBP * 8),                     \
                           [r12] "i"(REG_R12 * 8), [r13] "i"(REG_R13 * 8), [r14] "i"(REG_R14 * 8),      \
                           [r15] "i"(REG_R15 * 8), [rsp] "i"(REG_RSP * 8), [rip] "i"(REG_RIP * 8)       \
                         : "rax", "memory");                                                            \
        (uc)->uc_mcontext.fpregs = NULL;                                                                \
    } while (0)
#else
#define HCT_UNWIND_CONTEXT(uc) ((void)unw_getcontext(uc))
#endif

#endif

/* hcatrace.h: optional user markers for hcatrace. Mark a repeating code region
 * (an iteration, a solver phase) so that it is traced and folded as a region of
 * its own. The symbols are weak: a program built with these markers runs
 * unchanged, and untraced, without libhcatrace.so.
 *
 *   #include <hcatrace.h>
 *   for (it = 0; it < n; it++) {
 *       HCATRACE_BEGIN("iteration");
 *       ...
 *       HCATRACE_END("iteration");
 *   }
 *
 * Regions nest; END closes the innermost open region and must name it. */
#ifndef HCATRACE_H
#define HCATRACE_H

#ifdef __cplusplus
extern "C" {
#endif

void hcatrace_region_begin(const char *name) __attribute__((weak));
void hcatrace_region_end(const char *name) __attribute__((weak));

#define HCATRACE_BEGIN(name)                      \
    do {                                          \
        if (hcatrace_region_begin)                \
            hcatrace_region_begin(name);          \
    } while (0)
#define HCATRACE_END(name)                        \
    do {                                          \
        if (hcatrace_region_end)                  \
            hcatrace_region_end(name);            \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif

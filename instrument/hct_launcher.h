/* hct_launcher.h: recognizes MPI launchers and their daemons, which must stay
 * untouched by the preloaded tracer. */
#ifndef HCT_LAUNCHER_H
#define HCT_LAUNCHER_H

/* True when `name` (the executable's short name) is a launcher or daemon. */
int hct_is_launcher(const char *name);

#endif

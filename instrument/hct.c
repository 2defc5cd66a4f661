/* hct.c: the process state of the tracer (hct.h), read and written by every
 * file of libhcatrace.so. It calls nothing: the bottom of the tracer's layers. */
#include "hct.h"

hct_state hct;

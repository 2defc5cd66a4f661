/* hca_source_path.h: source file paths as the trace records them: a name the
 * compiler recorded relative to its compilation directory joined to that
 * directory, "." and ".." resolved by name (the files need not exist here);
 * shared by the tracer (DWARF's DW_AT_comp_dir) and hcafold (--source-dir). */
#ifndef HCA_SOURCE_PATH_H
#define HCA_SOURCE_PATH_H

#include <stddef.h>

/* `name` if absolute, else `dir`/`name`, normalized: no "." component, a ".."
 * removes the component before it (never above the root of an absolute path;
 * a relative path keeps its leading ".."), no repeated or trailing '/'. dir
 * NULL or "" leaves name as it is apart from the normalization. Returns 0, or
 * -1 when the result does not fit in len bytes (out is then ""). */
int hca_source_path_join(const char *dir, const char *name, char *out, size_t len);

#endif

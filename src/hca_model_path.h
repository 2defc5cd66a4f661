/* hca_model_path.h: where models are found. A model is named by a path (it
 * has a '/' or ends in ".model") or by its name, looked up as NAME.model in
 * $HCATRACE_MODEL_PATH (directories separated by ':'), then in the installed
 * share/hcatrace/models, then in the source tree's models/ (uninstalled
 * builds). Also picks the model for a libpfm4 PMU (HCATRACE_MODEL=auto).
 * Used by the tracer and by hcafold; no state. */
#ifndef HCA_MODEL_PATH_H
#define HCA_MODEL_PATH_H

#include <stddef.h>

/* Finds a model. Returns 0 with its path, or -1 with a one-line reason in err
 * naming the directories searched and the closest model name there. */
int hca_model_find(const char *name, char *path, size_t pathlen, char *err, size_t errlen);

/* The model for a libpfm4 PMU name ("skx", "amd64_fam19h_zen4", ...): the
 * first model file, by name, whose `match pmu=...` line lists it. Returns 0
 * with its path, or -1 when no model names that PMU. */
int hca_model_for_pmu(const char *pmu, char *path, size_t pathlen);

/* Calls each(name, path, user) for every model found by name, in search
 * order, by name within a directory; a name already found in a directory
 * searched before is left out (hca_model_find would not reach it). Returns
 * how many. */
int hca_model_list(void (*each)(const char *name, const char *path, void *user), void *user);

/* The directories searched, in order, separated by ':' (for messages). */
void hca_model_dirs(char *out, size_t outlen);

#endif

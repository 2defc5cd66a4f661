/* hca_partial.h: a rank's partial definitions file, DIR/rank-N.partial: what a traced
 * process that ends without unifying its definitions (a signal, MPI_Abort, exit
 * without MPI_Finalize) leaves beside its event files, so that the global view can be
 * rebuilt afterwards without MPI (hca_recover.h). Written by the tracer with plain
 * write(2) calls, read by the recovery; same machine, same build: the layout is the
 * structs below, native byte order. */
#ifndef HCA_PARTIAL_H
#define HCA_PARTIAL_H

#include <stddef.h>
#include <stdint.h>

#include "hca_defs.h"

#define HCA_PARTIAL_MAGIC "HCAPART1"
#define HCA_PARTIAL_FMT "rank-%d.partial" /* in the experiment directory */

typedef struct {
    char magic[8];     /* HCA_PARTIAL_MAGIC, no NUL */
    uint32_t rank, size;
    uint32_t nlocs;    /* hca_location_info records that follow */
    uint32_t reserved;
    uint64_t begin_ts;  /* the program's begin, this process's clock */
    uint64_t end_ts;    /* when recording stopped, this process's clock */
    uint64_t offset_ts; /* when the offset below was measured (MPI_Init), this process's clock */
    int64_t offset;     /* this process's clock -> the job's (rank 0's) */
    uint64_t defs_len; /* bytes of hca_defs_serialize that follow the locations */
    char how[64];      /* how the process ended: "SIGTERM", "MPI_Abort", ... */
    char host[256];
    char exe[256];
} hca_partial_header;

/* Writes DIR/rank-N.partial: the header, the locations, the serialized definitions,
 * into DIR/rank-N.partial.tmp (O_EXCL|O_NOFOLLOW, fsync), then linked to its name: the
 * file is there complete or not at all. 0 or -1 (errno). */
int hca_partial_write(const char *dir, const hca_partial_header *h, const hca_location_info *locs,
                      const unsigned char *defs, size_t defs_len);

typedef struct {
    hca_partial_header h;
    hca_location_info *locs;
    hca_defs defs;
} hca_partial;

/* Reads one file; 0, or -1 with a one-line reason in err. */
int hca_partial_read(const char *path, hca_partial *p, char *err, size_t errlen);
void hca_partial_free(hca_partial *p);

#endif

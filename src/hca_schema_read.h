/* hca_schema_read.h: the reading side of the trace schema. Reads an hcatrace
 * archive's global definitions and trace file properties into plain tables
 * indexed by OTF2 ID, the one decoding of the format's definitions that hcafold
 * (fold/read_defs.c) and the test tools (tests/tracestat.c) share. What the
 * names mean is hca_schema.h; events are each reader's own concern. */
#ifndef HCA_SCHEMA_READ_H
#define HCA_SCHEMA_READ_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#define HCA_READ_MAX_ID (1u << 26) /* definition IDs above this are treated as corrupt */

typedef struct {
    uint32_t name, description, file, line, paradigm, role;
    uint8_t defined;
} hca_read_region;

typedef struct {
    uint32_t file, line;
    uint8_t defined;
} hca_read_scl;

typedef struct {
    uint32_t region, scl, parent; /* OTF2 IDs; OTF2_UNDEFINED_* where none */
    uint8_t defined;
} hca_read_cc;

typedef struct {
    uint32_t name, unit, description; /* string IDs */
    uint8_t defined;
} hca_read_member;

typedef struct {
    uint32_t *members; /* metric member IDs, in class order */
    uint8_t n, defined;
} hca_read_class;

typedef struct {
    uint64_t id, nevents;
    uint32_t group; /* location group: the rank */
} hca_read_location;

typedef struct {
    uint32_t type, size; /* OTF2_GroupType; members listed */
} hca_read_group;

/* What a location did not write of a region (its HCA_PROP_THINNED property). */
typedef struct {
    uint64_t location;
    uint32_t region; /* OTF2 region ID */
    uint64_t instances, time_ns;
} hca_read_thinned;

typedef struct {
    uint32_t name, group;
} hca_read_comm;

/* The global definitions. Arrays are indexed by OTF2 ID (zero-filled up to the
 * highest ID seen; `defined` tells entries that were read), but locations,
 * which are in definition order. */
typedef struct {
    char **strings;
    size_t nstrings, cap_strings;
    hca_read_region *regions;
    size_t nregions, cap_regions;
    hca_read_scl *scls;
    size_t nscls, cap_scls;
    hca_read_cc *ccs;
    size_t nccs, cap_ccs;
    hca_read_member *members;
    size_t nmembers, cap_members;
    hca_read_class *classes;
    size_t nclasses, cap_classes;
    hca_read_location *locations;
    size_t nlocations, cap_locations;
    hca_read_group *groups;
    size_t ngroups, cap_groups;
    hca_read_comm *comms;
    size_t ncomms, cap_comms;
    hca_read_thinned *thinned; /* in definition order */
    size_t nthinned, cap_thinned;
    uint64_t clock_resolution, global_offset, trace_length;
    uint64_t sample_period_ns; /* of interrupt generator 0 (else the first), 0 if none */
    int bad;                   /* -1 out of memory, 1 corrupt (why says what) */
    char why[128];
} hca_trace_defs;

/* Reads the global definitions with gd, the global definition reader of r, into
 * d (zeroed here); the caller closes gd. Returns OTF2's code; on OTF2_SUCCESS
 * d->bad is 0. */
OTF2_ErrorCode hca_read_global_defs(OTF2_Reader *r, OTF2_GlobalDefReader *gd, hca_trace_defs *d);
void hca_trace_defs_free(hca_trace_defs *d);

/* The string of ref, or dflt when it is not defined. */
const char *hca_trace_defs_string(const hca_trace_defs *d, uint32_t ref, const char *dflt);

/* The name of a metric member, or dflt. */
const char *hca_trace_defs_member_name(const hca_trace_defs *d, uint32_t member, const char *dflt);

/* 1 if the class holds the tracer's sampling statistics (hca_is_stats_member). */
int hca_trace_defs_class_is_stats(const hca_trace_defs *d, uint32_t klass);

/* The archive's trace file properties, in the anchor file's order. */
typedef struct {
    char **names, **values;
    size_t n;
} hca_properties;

/* Returns 0, or -1 when out of memory (what was read is kept). An archive
 * without properties gives none. */
int hca_read_properties(OTF2_Reader *r, hca_properties *p);
void hca_properties_free(hca_properties *p);

/* Grows *arr, zero-filled, to hold need elements of size (capacity *cap,
 * doubled); -1 when out of memory. The tables above grow with it. */
int hca_grow(void **arr, size_t *cap, size_t need, size_t size);

#endif

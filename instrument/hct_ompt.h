/* hct_ompt.h: the few OMPT declarations hct_openmp_ompt.c needs, written from
 * the OpenMP 5.0 specification (section 4, "OMPT Interface": 4.2.1
 * ompt_start_tool, 4.4.1 ompt_callbacks_t, 4.4.4 type definitions, 4.5.2
 * callback signatures; numeric values as in its omp-tools.h, Appendix B) and
 * checked against LLVM 14's omp-tools.h. Not the whole header: that one lives in
 * clang's include directory, which must not be on gcc's include path. */
#ifndef HCT_OMPT_H
#define HCT_OMPT_H

#include <stdint.h>

typedef union ompt_data_t {
    uint64_t value;
    void *ptr;
} ompt_data_t;

typedef struct ompt_frame_t ompt_frame_t; /* only passed by pointer here */
typedef uint64_t ompt_wait_id_t;

typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *interface_function_name);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);

typedef struct ompt_start_tool_result_t {
    ompt_initialize_t initialize;
    ompt_finalize_t finalize;
    ompt_data_t tool_data;
} ompt_start_tool_result_t;

typedef enum ompt_callbacks_t {
    ompt_callback_parallel_begin = 3,
    ompt_callback_parallel_end = 4,
    ompt_callback_implicit_task = 7,
    ompt_callback_mutex_released = 17,
    ompt_callback_work = 20,
    ompt_callback_sync_region = 23,
    ompt_callback_mutex_acquire = 26
} ompt_callbacks_t;

typedef enum ompt_set_result_t {
    ompt_set_error = 0,
    ompt_set_never = 1,
    ompt_set_impossible = 2,
    ompt_set_sometimes = 3,
    ompt_set_sometimes_paired = 4,
    ompt_set_always = 5
} ompt_set_result_t;

typedef void (*ompt_callback_t)(void);
typedef ompt_set_result_t (*ompt_set_callback_t)(ompt_callbacks_t event, ompt_callback_t callback);

typedef enum ompt_scope_endpoint_t { ompt_scope_begin = 1, ompt_scope_end = 2 } ompt_scope_endpoint_t;

typedef enum ompt_sync_region_t {
    ompt_sync_region_barrier = 1,
    ompt_sync_region_barrier_implicit = 2,
    ompt_sync_region_barrier_explicit = 3,
    ompt_sync_region_barrier_implementation = 4,
    ompt_sync_region_taskwait = 5,
    ompt_sync_region_taskgroup = 6,
    ompt_sync_region_reduction = 7,
    ompt_sync_region_barrier_implicit_workshare = 8, /* OpenMP 5.1 */
    ompt_sync_region_barrier_implicit_parallel = 9   /* OpenMP 5.1 */
} ompt_sync_region_t;

typedef enum ompt_work_t {
    ompt_work_loop = 1,
    ompt_work_sections = 2,
    ompt_work_single_executor = 3,
    ompt_work_single_other = 4
} ompt_work_t;

typedef enum ompt_mutex_t { ompt_mutex_critical = 5 } ompt_mutex_t;

enum { ompt_task_initial = 0x1, ompt_task_implicit = 0x2 }; /* ompt_task_flag_t */

typedef void (*ompt_callback_parallel_begin_t)(ompt_data_t *encountering_task_data,
                                               const ompt_frame_t *encountering_task_frame,
                                               ompt_data_t *parallel_data, unsigned int requested_parallelism,
                                               int flags, const void *codeptr_ra);
typedef void (*ompt_callback_parallel_end_t)(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data,
                                             int flags, const void *codeptr_ra);
typedef void (*ompt_callback_implicit_task_t)(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                              ompt_data_t *task_data, unsigned int actual_parallelism,
                                              unsigned int index, int flags);
typedef void (*ompt_callback_sync_region_t)(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                            ompt_data_t *parallel_data, ompt_data_t *task_data,
                                            const void *codeptr_ra);
typedef void (*ompt_callback_work_t)(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                     ompt_data_t *task_data, uint64_t count, const void *codeptr_ra);
typedef void (*ompt_callback_mutex_acquire_t)(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                                              ompt_wait_id_t wait_id, const void *codeptr_ra);
typedef void (*ompt_callback_mutex_t)(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra);

#endif

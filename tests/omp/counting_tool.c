/* A minimal OMPT tool of someone else's (a profiler, Archer): counts the
 * parallel regions it sees and says so at finalize. Loaded through
 * OMP_TOOL_LIBRARIES next to a preloaded libselfsched (tests/omp/tool_chain.cmake). */
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int regions;

static void on_parallel_begin(ompt_data_t* task, const ompt_frame_t* frame, ompt_data_t* parallel,
                              unsigned requested, int flags, const void* code) {
  (void)task, (void)frame, (void)requested, (void)flags, (void)code;
  parallel->value = 42; /* its own data: must not disturb selfsched's */
  atomic_fetch_add(&regions, 1);
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t* data) {
  (void)device, (void)data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  return set_callback(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin) == ompt_set_always;
}

static void finalize(ompt_data_t* data) {
  (void)data;
  fprintf(stderr, "counting tool: %d parallel regions\n", atomic_load(&regions));
}

ompt_start_tool_result_t* ompt_start_tool(unsigned int version, const char* runtime) {
  (void)version, (void)runtime;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}

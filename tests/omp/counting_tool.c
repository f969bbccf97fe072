/* A minimal OMPT tool of someone else's (a profiler, Archer): counts the
 * parallel regions it sees and says so at finalize. Loaded through
 * OMP_TOOL_LIBRARIES next to a preloaded libselfsched (tests/omp/tool_chain.cmake).
 * It also checks that its parallel data is its own: every implicit task of a
 * region must see what the tool stored at the region's begin, and every
 * initial task must get parallel data to store into (Archer does). And the
 * loops libomp reports (the ones libselfsched leaves to it) must be named by
 * an address in the program, as without libselfsched: a tool's only name
 * for a loop is the address libomp gives, its caller's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

static atomic_int regions, implicit_tasks, not_its_own, loops, loops_elsewhere;

static int first_object(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  *(ElfW(Addr)*)data = info->dlpi_addr; /* the executable comes first */
  return 1;
}

static void on_work(ompt_work_t work, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task,
                    uint64_t count, const void* codeptr) {
  (void)parallel, (void)task, (void)count;
  if (endpoint != ompt_scope_begin || (work != ompt_work_loop && work != ompt_work_loop_dynamic &&
                                       work != ompt_work_loop_guided && work != ompt_work_loop_other))
    return;
  atomic_fetch_add(&loops, 1);
  ElfW(Addr) program = 0;
  dl_iterate_phdr(first_object, &program);
  Dl_info where;
  if (codeptr == NULL || !dladdr(codeptr, &where) || (ElfW(Addr))where.dli_fbase != program) {
    if (atomic_fetch_add(&loops_elsewhere, 1) == 0)
      fprintf(stderr, "counting tool: a loop named at %p, in %s\n", codeptr, codeptr ? where.dli_fname : "?");
  }
}

static void on_parallel_begin(ompt_data_t* task, const ompt_frame_t* frame, ompt_data_t* parallel,
                              unsigned requested, int flags, const void* code) {
  (void)task, (void)frame, (void)requested, (void)flags, (void)code;
  parallel->value = 42; /* its own data: must not disturb selfsched's */
  atomic_fetch_add(&regions, 1);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task,
                             unsigned actual, unsigned index, int flags) {
  (void)task, (void)actual, (void)index;
  if (endpoint != ompt_scope_begin) return;
  atomic_fetch_add(&implicit_tasks, 1);
  if (flags & ompt_task_initial) {
    if (parallel == NULL) atomic_fetch_add(&not_its_own, 1);
    else parallel->value = 7;
  } else if (parallel == NULL || parallel->value != 42) {
    atomic_fetch_add(&not_its_own, 1);
  }
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t* data) {
  (void)device, (void)data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  return set_callback(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin) == ompt_set_always &&
         set_callback(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task) == ompt_set_always &&
         set_callback(ompt_callback_work, (ompt_callback_t)on_work) == ompt_set_always;
}

static void finalize(ompt_data_t* data) {
  (void)data;
  fprintf(stderr, "counting tool: %d parallel regions, %d implicit tasks, %d saw parallel data not its own, "
          "%d loops, %d named outside the program\n",
          atomic_load(&regions), atomic_load(&implicit_tasks), atomic_load(&not_its_own), atomic_load(&loops),
          atomic_load(&loops_elsewhere));
}

ompt_start_tool_result_t* ompt_start_tool(unsigned int version, const char* runtime) {
  (void)version, (void)runtime;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}

// dlopen (program_libraries.cpp says what it does). The C library takes the
// caller of dlopen from the return address: for the program's calls, its
// RUNPATH, $ORIGIN and namespace must be the ones searched, so its call goes
// on to the C library's dlopen as a tail call, with the program's return
// address still in place.
#define _GNU_SOURCE
#include <dlfcn.h>

typedef void* (*open_function)(const char*, int);
int selfsched_cluster_dlopen_is_runtimes(void* caller);
void* selfsched_cluster_dlopen_for_runtime(const char* file, int mode);
open_function selfsched_cluster_real_dlopen(void);

__attribute__((visibility("default"))) void* dlopen(const char* file, int mode) {
  if (selfsched_cluster_dlopen_is_runtimes(__builtin_return_address(0)))
    return selfsched_cluster_dlopen_for_runtime(file, mode);
  const open_function real = selfsched_cluster_real_dlopen();
  __attribute__((musttail)) return real(file, mode);
}

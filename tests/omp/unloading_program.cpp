// A program without OpenMP that opens a library of OpenMP loops, runs them,
// and closes it again, twice (a plugin host, a Python extension): the loops'
// module is gone by the time a preloaded libselfsched writes its profile at
// exit.
//
//   omp_unloading_program LIBRARY
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: omp_unloading_program LIBRARY\n");
    return 2;
  }
  int wrong = 0;
  for (int round = 0; round < 2; ++round) {
    void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      std::fprintf(stderr, "dlopen: %s\n", dlerror());
      return 2;
    }
    auto* loop = reinterpret_cast<int (*)(int)>(dlsym(library, "loop_library_wrong_iterations"));
    if (loop == nullptr) {
      std::fprintf(stderr, "dlsym: %s\n", dlerror());
      return 2;
    }
    for (int k = 0; k < 3; ++k) wrong += loop(20000);
    dlclose(library);
  }
  std::printf("iterations not run exactly once: %d\n", wrong);
  return wrong == 0 ? 0 : 1;
}

// A program that loads a library (dlopen) after it starts and fills the
// library's static data in parallel loops: the sums are one process's.
// `loaded_library PATH_OF_LIBRARY`.
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  double s = 0;
  #pragma omp parallel for reduction(+ : s)  // a region before the load
  for (int i = 0; i < 1000; ++i) s += i;
  void* library = dlopen(argv[1], RTLD_NOW);
  if (library == NULL) {
    printf("cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  double* (*data)(void) = (double* (*)(void))dlsym(library, "plugin_data");
  double* table = data();
  #pragma omp parallel for schedule(dynamic, 100)
  for (int i = 0; i < 100000; ++i) table[i] = (i % 1000) * 0.5;
  #pragma omp parallel for schedule(static)
  for (int i = 0; i < 100000; i += 2) table[i] *= 3;
  double sum = 0;
  for (int i = 0; i < 100000; ++i) sum += table[i];
  printf("before %.1f table %.1f calls %d\n", s, sum, *(int*)dlsym(library, "plugin_calls"));
  dlclose(library);
  #pragma omp parallel for reduction(+ : s)  // a region after it is closed
  for (int i = 0; i < 1000; ++i) s += i;
  printf("after %.1f\n", s);
  return 0;
}

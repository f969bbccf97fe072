// libm, opened when libselfsched first computes with it, not by the loader.
//
// A C program whose loops are not selfsched's (or a shell the library is
// preloaded into) would otherwise have libm mapped and relocated at every
// start for libselfsched alone: libomp does not need it. That is 10 page
// faults and 21,000 instructions before main (docs/results/overhead.md).
//
// These definitions stay inside libselfsched (exports.map names none of
// them): they do not interpose the program's calls, and ours bind to them
// at link time, which leaves the linker no reason to record libm as needed
// (-Wl,--as-needed, CMakeLists.txt). ceil, floor and sqrt, which most
// techniques call when they size chunks (and libstdc++'s hash tables,
// linked in, when they grow), are computed here as libm computes them, bit
// for bit (selfsched/core/exact_rounding.hpp): a fixed technique opens no
// libm. log, pow and ceill forward to libm's own; their first call opens it
// (a process that already has it, as every C++ and Fortran program does,
// gets the loaded one). They are fsc's and mfsc's chunk and bold's
// estimates, and the alpha schemes' first phase: those open libm as their
// first loop starts, once per process.
#include "selfsched/core/exact_rounding.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace {

struct libm_functions {
  double (*log)(double);
  double (*pow)(double, double);
  double (*sqrt)(double);
  double (*ceil)(double);
  double (*floor)(double);
  long double (*ceill)(long double);
};

template <typename F>
void look_up(void* libm, F& slot, const char* name) {
  slot = reinterpret_cast<F>(dlsym(libm, name));
  if (slot == nullptr) {
    std::fprintf(stderr, "selfsched: %s not found in libm.so.6: %s\n", name, dlerror());
    std::abort();
  }
}

const libm_functions& libm() {
  static const libm_functions functions = [] {
    void* libm = dlopen("libm.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (libm == nullptr) {
      std::fprintf(stderr, "selfsched: libm.so.6 could not be opened: %s\n", dlerror());
      std::abort();
    }
    libm_functions f{};
    look_up(libm, f.log, "log");
    look_up(libm, f.pow, "pow");
    look_up(libm, f.sqrt, "sqrt");
    look_up(libm, f.ceil, "ceil");
    look_up(libm, f.floor, "floor");
    look_up(libm, f.ceill, "ceill");
    return f;  // libm stays open for the process's life
  }();
  return functions;
}

}  // namespace

extern "C" {
double log(double x) { return libm().log(x); }
double pow(double x, double y) { return libm().pow(x, y); }
#if defined(__SSE2__)
double sqrt(double x) { return selfsched::exact_sqrt(x); }
double ceil(double x) { return selfsched::exact_ceil(x); }
double floor(double x) { return selfsched::exact_floor(x); }
#else  // where the compiler does not inline them itself, libm's own
double sqrt(double x) { return libm().sqrt(x); }
double ceil(double x) { return libm().ceil(x); }
double floor(double x) { return libm().floor(x); }
#endif
long double ceill(long double x) { return libm().ceill(x); }
}

#include "runtime/runtimes.hpp"

#include <dlfcn.h>
#include <link.h>

#include <string>
#include <string_view>

#include "runtime/libomp_abi.hpp"

// Ours, as this library defines them (-Bsymbolic-functions: these are our
// own addresses, whatever the process's search order).
extern "C" void __kmpc_dispatch_deinit(selfsched::omp::ident_t*, std::int32_t);
extern "C" void GOMP_loop_end();

namespace selfsched::omp {
namespace detail {
std::atomic<bool> hooks_in_use{false};
std::atomic<bool> loop_served{false};
}

runtime_report look_at_runtimes() {
  runtime_report r;
  r.libomp = dlsym(RTLD_DEFAULT, "__kmpc_fork_call") != nullptr;
  if (void* libgomp = loaded_libgomp()) {
    r.libgomp = true;
    dlclose(libgomp);
  }
  // What the program's own calls bind to: the first definition in the
  // process's search order.
  // A libomp that takes registered schedules serves ours whatever the order.
  r.libomp_hooks = r.libomp && runtime_hooks_in_use();
  r.libomp_served = r.libomp_hooks ||
                    dlsym(RTLD_DEFAULT, "__kmpc_dispatch_deinit") == reinterpret_cast<void*>(&__kmpc_dispatch_deinit);
  r.libgomp_served = dlsym(RTLD_DEFAULT, "GOMP_loop_end") == reinterpret_cast<void*>(&GOMP_loop_end);
  return r;
}

// The loaded objects are walked for libgomp by file name, then opened by the
// path they were loaded from: dlopen("libgomp.so.1", RTLD_NOLOAD) alone,
// when libgomp is absent (every clang program), searches the library path
// (ld.so.cache, a dozen directories) at each call, at start-up and at exit.
void* loaded_libgomp() {
  const char* path = nullptr;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        const std::string_view name = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const std::string_view file = name.substr(name.rfind('/') + 1);  // npos + 1: all of it
        if (!file.starts_with("libgomp.so")) return 0;
        *static_cast<const char**>(data) = info->dlpi_name;
        return 1;
      },
      &path);
  return path != nullptr ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : nullptr;
}

namespace {

// The program's runtime's own definition of `name` (libgomp's when loaded).
void* runtime_function(const char* name) {
  void* libgomp = loaded_libgomp();
  void* found = dlsym(libgomp != nullptr ? libgomp : RTLD_NEXT, name);
  if (libgomp != nullptr) dlclose(libgomp);
  return found;
}

}  // namespace

set_schedule_function runtime_set_schedule() {
  return reinterpret_cast<set_schedule_function>(runtime_function("omp_set_schedule"));
}

get_schedule_function runtime_get_schedule() {
  return reinterpret_cast<get_schedule_function>(runtime_function("omp_get_schedule"));
}

std::string describe(const runtime_report& r) {
  if (!r.any_loaded()) return "no OpenMP runtime loaded yet";
  const auto one = [&r](const char* name, bool served) {
    if (served && r.libomp_hooks && std::string_view(name).starts_with("libomp"))
      return std::string(name) + ": its loops come to selfsched through the schedules registered with it";
    return std::string(name) + (served ? ": its loops come to selfsched"
                                       : ": its loops do not come to selfsched (the runtime is linked before "
                                         "libselfsched; link -lselfsched first, or LD_PRELOAD it)");
  };
  std::string text;
  if (r.libomp) text = one("libomp (clang)", r.libomp_served);
  if (r.libgomp) text += (text.empty() ? "" : "; ") + one("libgomp (GCC)", r.libgomp_served);
  return text;
}

}  // namespace selfsched::omp

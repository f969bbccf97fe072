#include "modules.hpp"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>

namespace selfsched::cluster {
namespace {

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool starts(const std::string& name, std::initializer_list<const char*> prefixes) {
  for (const char* p : prefixes)
    if (name.starts_with(p)) return true;
  return false;
}

// Text range of the object mapped at `base` (the loader: AT_BASE), read
// from its own headers in memory, without the loader's help.
address_range text_of_mapped(std::uintptr_t base) {
  address_range r{};
  if (base == 0) return r;
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(base);
  const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(base + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; ++i)
    if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
      const std::uintptr_t b = base + ph[i].p_vaddr, e = b + ph[i].p_memsz;
      if (r.begin == 0 || b < r.begin) r.begin = b;
      if (e > r.end) r.end = e;
    }
  return r;
}

std::mutex runtime_objects_lock;
std::vector<std::uintptr_t> runtime_objects;  // load addresses

bool loaded_by_runtime(std::uintptr_t object) {
  std::lock_guard hold(runtime_objects_lock);
  return std::find(runtime_objects.begin(), runtime_objects.end(), object) != runtime_objects.end();
}

int collect(dl_phdr_info* info, std::size_t, void* data) {
  auto& out = *static_cast<std::vector<module_info>*>(data);
  module_info m;
  m.path = info->dlpi_name != nullptr ? info->dlpi_name : "";
  if (info->dlpi_phnum == 0) return 0;
  address_range relro{};
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO)
      relro = {info->dlpi_addr + info->dlpi_phdr[i].p_vaddr,
               info->dlpi_addr + info->dlpi_phdr[i].p_vaddr + info->dlpi_phdr[i].p_memsz};
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    std::uintptr_t b = info->dlpi_addr + ph.p_vaddr, e = b + ph.p_memsz;
    if (ph.p_flags & PF_X) {
      if (m.text.begin == 0 || b < m.text.begin) m.text.begin = b;
      if (e > m.text.end) m.text.end = e;
    }
    if (ph.p_flags & PF_W) {
      // Writable after start-up: the part past RELRO, whole pages (a
      // segment's first page may hold RELRO's end; RELRO ends on a page).
      if (relro.end > b && relro.begin <= b) b = relro.end;
      b &= ~std::uintptr_t{4095};
      e = (e + 4095) & ~std::uintptr_t{4095};
      if (e > b) m.data.push_back({b, e});
    }
  }
  const bool runtime_loaded = loaded_by_runtime(info->dlpi_addr);
  m.runtime = runtime_loaded || is_runtime_module(m.path);
  m.allocates_for_runtime = runtime_loaded || allocates_for_runtime(m.path);
  out.push_back(std::move(m));
  return 0;
}

// Text ranges, sorted, with the answer for each; swapped whole when redone.
struct caller_entry {
  address_range text;
  bool allocates_for_runtime, runtime;
};
struct caller_table {
  std::vector<caller_entry> ranges;
};
std::atomic<const caller_table*> table{nullptr};
std::mutex table_lock;
address_range loader_text{};
std::once_flag loader_once;

// Set while this thread builds a table: what it allocates meanwhile asks
// who called (the allocator does), and the answer is this library.
thread_local bool building __attribute__((tls_model("initial-exec"))) = false;

const caller_table* rebuild() {
  std::lock_guard<std::mutex> hold(table_lock);
  building = true;
  auto* t = new caller_table;  // the runtime's memory (this library's own calls)
  for (const module_info& m : loaded_modules())
    if (m.text.end > m.text.begin) t->ranges.push_back({m.text, m.allocates_for_runtime, m.runtime});
  std::sort(t->ranges.begin(), t->ranges.end(),
            [](const auto& a, const auto& b) { return a.text.begin < b.text.begin; });
  // Older tables stay: a reader may still hold one (a few per dlopen).
  table.store(t, std::memory_order_release);
  building = false;
  return t;
}

}  // namespace

bool is_runtime_module(const std::string& path) {
  const std::string name = base_name(path);
  if (name.empty()) return false;  // the executable
  return starts(name, {"ld-linux", "ld64.so", "libc.so", "libm.so", "libpthread", "libdl.", "librt.", "libgcc_s",
                       "libstdc++", "libomp", "libiomp", "libgomp", "libselfsched", "libhwloc", "libudev", "libxml2",
                       "libz.so", "liblzma", "libicu", "libnuma", "libltdl", "libcap", "libpciaccess", "libsystemd",
                       "linux-vdso", "libresolv", "libnss_", "libmvec"});
}

bool allocates_for_runtime(const std::string& path) {
  // The C and C++ libraries allocate for whoever calls them: the program's
  // strdup and std::string are the program's.
  const std::string name = base_name(path);
  return is_runtime_module(path) && !starts(name, {"libc.so", "libm.so", "libstdc++", "libgcc_s", "libmvec"});
}

std::vector<module_info> loaded_modules() {
  std::vector<module_info> out;
  dl_iterate_phdr(collect, &out);
  return out;
}

std::vector<std::uintptr_t> loaded_objects() {
  std::vector<std::uintptr_t> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        static_cast<std::vector<std::uintptr_t>*>(data)->push_back(info->dlpi_addr);
        return 0;
      },
      &out);
  return out;
}

void mark_loaded_by_runtime(const std::vector<std::uintptr_t>& objects) {
  {
    std::lock_guard hold(runtime_objects_lock);
    runtime_objects.insert(runtime_objects.end(), objects.begin(), objects.end());
  }
  table.store(nullptr, std::memory_order_release);  // callers looked up again (older tables stay: see rebuild)
}

unsigned long long loads_so_far() {
  unsigned long long adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t size, void* out) {
        if (size >= offsetof(dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
          *static_cast<unsigned long long*>(out) = info->dlpi_adds;
        return 1;  // the first object says it
      },
      &adds);
  return adds;
}

namespace {

// The entry of the module holding `caller`, or nullptr (code outside any).
const caller_entry* entry_of(std::uintptr_t caller) {
  const caller_table* t = table.load(std::memory_order_acquire);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (t == nullptr) t = rebuild();
    const auto& r = t->ranges;
    auto it = std::upper_bound(r.begin(), r.end(), caller,
                               [](std::uintptr_t a, const caller_entry& e) { return a < e.text.begin; });
    if (it != r.begin() && std::prev(it)->text.contains(caller)) return &*std::prev(it);
    t = nullptr;  // in no module known: one loaded since
  }
  return nullptr;
}

}  // namespace

bool caller_is_runtime(std::uintptr_t caller) {
  if (building) return true;
  std::call_once(loader_once, [] { loader_text = text_of_mapped(getauxval(AT_BASE)); });
  if (loader_text.contains(caller)) return true;
  const caller_entry* e = entry_of(caller);
  return e != nullptr && e->allocates_for_runtime;  // code generated at run time: the program's
}

bool code_of_runtime(std::uintptr_t caller) {
  const caller_entry* e = entry_of(caller);
  return e != nullptr && e->runtime;
}

}  // namespace selfsched::cluster

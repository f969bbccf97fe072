#include "learning/auto_cache.hpp"

#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "learning/profile.hpp"
#include "runtime/object_symbols.hpp"
#include "selfsched/machine/auto_cache_file.hpp"
#include "selfsched/machine/files.hpp"
#include "selfsched/settings.hpp"
#include "state/site_state.hpp"

namespace selfsched::omp {
namespace {

using nlohmann::json;

// Every process that runs auto reads the whole file as it starts, so its
// size is their start-up cost (150 KB took 8 ms here; with 128 threads a
// site's entry alone is about 10 KB): the binaries used last, within a
// budget of bytes.
constexpr std::size_t kept_binaries = 16;
constexpr std::size_t kept_sites_per_binary = 256;
constexpr std::size_t kept_bytes = std::size_t{1} << 20;

struct remembered {
  site_state* state;
  std::string binary, offset;
};

// Which version of the file `binaries` holds: when the file is still that
// one at exit, what was read is merged without reading and parsing it again.
struct file_version {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = -1;
  timespec modified{};
  bool operator==(const file_version& o) const {
    return device == o.device && inode == o.inode && size == o.size && modified.tv_sec == o.modified.tv_sec &&
           modified.tv_nsec == o.modified.tv_nsec;
  }
};

std::optional<file_version> version_of(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  return file_version{st.st_dev, st.st_ino, st.st_size, st.st_mtim};
}

struct cache {
  std::mutex lock;
  bool loaded = false;
  std::string path;  // "" : off
  json binaries = json::object();  // as read at the first lookup, then as last written
  std::optional<file_version> binaries_version;  // the file they were read from or written to
  std::map<std::uintptr_t, std::string> binary_of_module;  // a module's key, by its load address: found once
  std::vector<remembered> sites;
  std::map<std::pair<std::string, std::string>, std::string> regions;  // (binary, offset) -> cluster mode's choice
};

cache& the_cache() {
  static auto* c = new cache;  // never destroyed: the exit handler uses it
  return *c;
}

// The GNU build id in the object's notes, as hex; "" if it has none.
std::string build_id_of(const dl_phdr_info& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* note = reinterpret_cast<const char*>(info.dlpi_addr + ph.p_vaddr);
    const char* end = note + ph.p_memsz;
    while (note + sizeof(ElfW(Nhdr)) <= end) {
      const auto* header = reinterpret_cast<const ElfW(Nhdr)*>(note);
      const char* name = note + sizeof(ElfW(Nhdr));
      const char* desc = name + ((header->n_namesz + 3) & ~3u);
      if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 && std::string_view(name, 3) == "GNU") {
        constexpr char digits[] = "0123456789abcdef";
        std::string id;
        for (unsigned k = 0; k < header->n_descsz; ++k) {
          const auto byte = static_cast<unsigned char>(desc[k]);
          id += digits[byte >> 4];
          id += digits[byte & 15];
        }
        return id;
      }
      note = desc + ((header->n_descsz + 3) & ~3u);
    }
  }
  return {};
}

// Where the object is mapped, as dladdr's dli_fbase: its first segment's page.
std::uintptr_t base_of(const dl_phdr_info& info) {
  std::uintptr_t first = UINTPTR_MAX;
  for (int i = 0; i < info.dlpi_phnum; ++i)
    if (info.dlpi_phdr[i].p_type == PT_LOAD)
      first = std::min<std::uintptr_t>(first, info.dlpi_addr + info.dlpi_phdr[i].p_vaddr);
  return first & ~(static_cast<std::uintptr_t>(getpagesize()) - 1);
}

// The loaded object holding `address`, by one walk over the objects'
// program headers (dladdr would also search the object's symbols for the
// nearest one: 46,000 instructions here, in the first auto loop, with its
// team waiting); false if none does. The headers stay valid while the
// object is loaded, as it is while its code runs.
bool find_module(const void* address, dl_phdr_info& found) {
  struct search {
    const void* address;
    dl_phdr_info* found;
    bool any = false;
  } s{address, &found};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto& s = *static_cast<search*>(data);
        if (!holds(*info, s.address)) return 0;
        *s.found = *info;
        s.any = true;
        return 1;
      },
      &s);
  return s.any;
}

// The binary holding `address` and the address's place in it; false when
// it is in no module (then nothing about it is cached). Under c.lock. A
// module's key is found once (its notes walked, or its file looked at).
bool key_of(cache& c, const void* address, std::string& binary, std::string& offset) {
  dl_phdr_info module{};
  if (address == nullptr || !find_module(address, module)) return false;
  const std::uintptr_t base = base_of(module);
  if (const auto known = c.binary_of_module.find(base); known != c.binary_of_module.end()) {
    binary = known->second;
  } else {
    binary = build_id_of(module);
    if (binary.empty()) {  // no build id: the file as it is now
      std::string file = module.dlpi_name != nullptr ? module.dlpi_name : "";
      if (file.empty()) {  // the program: its path, wherever it was started from
        char path[4096];
        const ssize_t n = readlink("/proc/self/exe", path, sizeof path);
        if (n <= 0 || static_cast<std::size_t>(n) == sizeof path) return false;
        file.assign(path, static_cast<std::size_t>(n));
      }
      struct stat st {};
      if (stat(file.c_str(), &st) != 0) return false;
      binary = file + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime);
    }
    c.binary_of_module.emplace(base, binary);
  }
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIxPTR, reinterpret_cast<std::uintptr_t>(address) - base);
  offset = text;
  return true;
}

bool key_of(cache& c, loop_site site, std::string& binary, std::string& offset) {
  return key_of(c, site.call, binary, offset);
}

// Under an MPI launcher, the first rank of each node writes: the others ran
// the same loops, and a thousand ranks replacing one file in a shared home
// at once is a burst of metadata traffic the file system's other users
// feel. A node-local home still gets each node's file.
bool writes_for_its_node() {
  const char* local_rank = launcher_local_rank([](const char* name) -> const char* { return std::getenv(name); });
  return local_rank == nullptr || std::strtol(local_rank, nullptr, 10) == 0;
}

// When a binary's entry was last written (unix seconds); 0 if it does not
// say (a file edited by hand: dropped first, never an exception).
std::int64_t used_of(const json& binary) {
  if (!binary.is_object()) return 0;
  const auto used = binary.find("used");
  return used != binary.end() && used->is_number_integer() ? used->get<std::int64_t>() : 0;
}

bool write_merged() {
  cache& c = the_cache();
  std::lock_guard guard(c.lock);
  if (c.path.empty()) return false;
  if ((c.sites.empty() && c.regions.empty()) || !writes_for_its_node()) return true;
  // Merge with what other processes wrote meanwhile; when none did (the
  // file is the version read), with what was read.
  std::string why;
  json binaries = json::object();
  if (c.binaries_version && version_of(c.path) == c.binaries_version) binaries = c.binaries;
  else if (std::optional<json> now = read_json_file(c.path, why);
           now && now->is_object() && now->contains("binaries") && (*now)["binaries"].is_object())
    binaries = std::move((*now)["binaries"]);
  const auto used = static_cast<std::int64_t>(std::time(nullptr));
  for (const remembered& r : c.sites) {
    json estimates = json::array();
    double team_rate;
    int runs;
    {
      std::lock_guard site_guard(r.state->tuning_lock);
      for (const auto_estimate& e : r.state->tuned)
        estimates.push_back({e.busy_seconds, e.iterations, e.claim_seconds,
                             static_cast<double>(std::max(e.largest_size, e.last_size))});
      team_rate = r.state->team_rate;
      runs = r.state->cached_runs + 1;
    }
    if (estimates.empty()) continue;  // the site never finished an instance
    json& binary = binaries[r.binary];
    if (!binary.is_object()) binary = json::object();
    binary["used"] = used;
    if (!binary.contains("sites") || !binary["sites"].is_object()) binary["sites"] = json::object();
    json& sites = binary["sites"];
    sites[r.offset] = {{"threads", estimates.size()}, {"team_rate", team_rate}, {"runs", runs},
                       {"estimates", std::move(estimates)}};
    while (sites.size() > kept_sites_per_binary) {
      auto victim = sites.begin();
      if (victim.key() == r.offset) ++victim;
      sites.erase(victim);
    }
  }
  for (const auto& [key, choice] : c.regions) {
    json& binary = binaries[key.first];
    if (!binary.is_object()) binary = json::object();
    binary["used"] = used;
    if (!binary.contains("regions") || !binary["regions"].is_object()) binary["regions"] = json::object();
    binary["regions"][key.second] = choice;
  }
  // The binaries used last stay; this run's were used now.
  const auto drop_oldest = [&binaries] {
    auto oldest = binaries.begin();
    for (auto b = binaries.begin(); b != binaries.end(); ++b)
      if (used_of(*b) < used_of(*oldest)) oldest = b;
    binaries.erase(oldest);
  };
  while (binaries.size() > kept_binaries) drop_oldest();
  const auto text = [&binaries] { return json{{"selfsched_auto_cache", 1}, {"binaries", binaries}}.dump() + "\n"; };
  std::string file = text();
  while (file.size() > kept_bytes && binaries.size() > 1) {
    drop_oldest();
    file = text();
  }
  if (!write_file_atomically(c.path, file, 0600, why)) {
    warn("SELFSCHED_AUTO_CACHE: what auto learned was not kept: %s", why.c_str());
    return false;
  }
  c.binaries_version = version_of(c.path);
  c.binaries = std::move(binaries);
  return true;
}

void write_at_exit() noexcept {
  try {
    write_merged();
  } catch (const std::exception& e) {
    warn("SELFSCHED_AUTO_CACHE: what auto learned was not kept: %s", e.what());
  }
}

// Under c.lock: the file, read once.
void load(cache& c) {
  if (c.loaded) return;
  c.loaded = true;
  c.path = cache_file_path(current_settings().auto_cache, "auto.json");
  if (c.path.empty()) return;
  std::atexit(write_at_exit);
  // A cache is read back: a FIFO, a device or a directory cannot be one.
  if (const std::string kind = not_a_file_to_replace(c.path); !kind.empty()) {
    warn("SELFSCHED_AUTO_CACHE: %s is %s, not a file: auto learns afresh and keeps nothing", c.path.c_str(),
         kind.c_str());
    c.path.clear();
    return;
  }
  std::string why;
  // Taken before the read: a version written between the two is read again at exit.
  const std::optional<file_version> version = version_of(c.path);
  std::optional<json> file = read_json_file(c.path, why);
  if (!file) {
    if (access(c.path.c_str(), F_OK) == 0 || errno != ENOENT)  // no file yet: nothing to say
      warn("SELFSCHED_AUTO_CACHE: %s; auto starts afresh and the file is replaced at exit", why.c_str());
    return;
  }
  if (!is_auto_cache(*file)) {
    warn("SELFSCHED_AUTO_CACHE: %s is not a selfsched auto cache (no \"selfsched_auto_cache\": 1 and "
         "\"binaries\" object); auto starts afresh and the file is replaced at exit", c.path.c_str());
    return;
  }
  c.binaries = std::move((*file)["binaries"]);
  c.binaries_version = version;
}

// `use` on the cache, read and locked; `otherwise` when memory runs out
// (auto then runs without the cache, as without a file).
template <typename Use, typename Result>
Result with_loaded_cache(Use use, Result otherwise) {
  try {
    cache& c = the_cache();
    std::lock_guard guard(c.lock);
    load(c);
    return use(c);
  } catch (const std::exception&) {
    return otherwise;
  }
}

}  // namespace

void read_auto_cache() {
  with_loaded_cache([](cache&) { return true; }, false);
}

bool seed_from_auto_cache(site_state& state, loop_site site) {
  return with_loaded_cache(
      [&](cache& c) {
        std::string binary, offset;
        if (c.path.empty() || !key_of(c, site, binary, offset)) return false;
        const auto b = c.binaries.find(binary);
        if (b == c.binaries.end() || !b->is_object() || !b->contains("sites") || !(*b)["sites"].is_object())
          return false;
        const auto entry = (*b)["sites"].find(offset);
        if (entry == (*b)["sites"].end()) return false;
        std::vector<auto_estimate> estimates;
        double team_rate = 0;
        int runs = 0;
        std::string why;
        if (!parse_site_entry(*entry, estimates, team_rate, runs, why)) {
          static bool said = false;
          if (!std::exchange(said, true))
            warn("SELFSCHED_AUTO_CACHE: %s, site %s of binary %s: %s; that site starts afresh", c.path.c_str(),
                 offset.c_str(), binary.c_str(), why.c_str());
          return false;
        }
        std::lock_guard site_guard(state.tuning_lock);
        state.tuned = std::move(estimates);
        state.team_rate = team_rate;
        state.cached_runs = runs;
        return true;
      },
      false);
}

void remember_for_auto_cache(site_state& state, loop_site site) {
  with_loaded_cache(
      [&](cache& c) {
        std::string binary, offset;
        if (!c.path.empty() && key_of(c, site, binary, offset)) c.sites.push_back({&state, binary, offset});
        return true;
      },
      false);
}

std::string cached_region_choice(const void* ident) {
  return with_loaded_cache(
      [&](cache& c) -> std::string {
        std::string binary, offset;
        if (c.path.empty() || !key_of(c, ident, binary, offset)) return {};
        if (const auto mine = c.regions.find({binary, offset}); mine != c.regions.end()) return mine->second;
        const auto b = c.binaries.find(binary);
        if (b == c.binaries.end() || !b->is_object() || !b->contains("regions") || !(*b)["regions"].is_object())
          return {};
        const auto entry = (*b)["regions"].find(offset);
        if (entry == (*b)["regions"].end() || !entry->is_string()) return {};
        const std::string choice = entry->get<std::string>();
        return choice == "shared" || choice == "replicated" || choice == "replicated_alike" ? choice : std::string();
      },
      std::string());
}

bool write_auto_cache_now() {
  if (!with_loaded_cache([](cache&) { return true; }, false)) return false;
  try {
    return write_merged();
  } catch (const std::exception&) {
    return false;
  }
}

void cache_region_choice(const void* ident, const char* choice) {
  with_loaded_cache(
      [&](cache& c) {
        std::string binary, offset;
        if (!c.path.empty() && key_of(c, ident, binary, offset)) c.regions[{binary, offset}] = choice;
        return true;
      },
      false);
}

}  // namespace selfsched::omp

#include "selfsched/machine/sia.hpp"

#include "selfsched/machine/files.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>

namespace selfsched::omp {

using nlohmann::json;

std::string sia_path(const std::string& setting) { return cache_file_path(setting, "sia.json"); }

namespace {

// A number field of an SIA entry, checked; nullopt when it is not one.
std::optional<double> finite_number(const json& entry, const char* name, double fallback) {
  const auto it = entry.find(name);
  if (it == entry.end()) return fallback;
  if (!it->is_number() || !std::isfinite(it->get<double>())) return std::nullopt;
  return it->get<double>();
}

std::optional<int> small_integer(const json& value, int lowest, int highest) {
  if (!value.is_number_integer()) return std::nullopt;
  const long long x = value.get<long long>();
  if (x < lowest || x > highest) return std::nullopt;
  return static_cast<int>(x);
}

}  // namespace

std::optional<system_information> parse_sia(const json& file, const std::string& path, const std::string& signature,
                                            std::string& why, bool& malformed) noexcept {
  malformed = true;
  try {
    if (!file.is_object() || !file.contains("machines") || !file["machines"].is_object())
      return why = path + " is not a selfsched system information file (no \"machines\" object)", std::nullopt;
    const json& machines = file["machines"];
    const auto entry = machines.find(signature);
    if (entry == machines.end()) {
      malformed = false;  // written on another machine: nothing wrong with it
      return why = path + " has no entry for this machine (" + signature + "); run selfsched-calibrate", std::nullopt;
    }
    const std::string at = path + ": machine \"" + signature + "\": ";
    if (!entry->is_object()) return why = at + "expected an object", std::nullopt;
    system_information info;
    info.machine = signature;
    for (const auto& [name, field] : {std::pair{"kernel", &info.kernel}, std::pair{"measured", &info.measured}})
      if (const auto it = entry->find(name); it != entry->end()) {
        if (!it->is_string()) return why = at + name + ": expected a string", std::nullopt;
        *field = it->get<std::string>();
      }
    const std::optional<double> ratio = finite_number(*entry, "heterogeneity_ratio", 1.0);
    if (!ratio) return why = at + "heterogeneity_ratio: expected a finite number", std::nullopt;
    info.heterogeneity_ratio = *ratio;
    const auto cores = entry->find("cores");
    if (cores == entry->end() || !cores->is_array() || cores->empty())
      return why = at + "cores: expected a non-empty array", std::nullopt;
    for (std::size_t i = 0; i < cores->size(); ++i) {
      const json& c = (*cores)[i];
      const std::string core_at = at + "cores[" + std::to_string(i) + "]";
      if (!c.is_object() || !c.contains("core") || !c.contains("pus") || !c.contains("vp"))
        return why = core_at + ": expected an object with core, pus and vp", std::nullopt;
      core_measurement m;
      const std::optional<int> core = small_integer(c["core"], 0, 1 << 20);
      if (!core) return why = core_at + ".core: expected a core number", std::nullopt;
      m.core = *core;
      if (!c["pus"].is_array()) return why = core_at + ".pus: expected an array of PU numbers", std::nullopt;
      for (const json& pu : c["pus"]) {
        const std::optional<int> index = small_integer(pu, 0, 1 << 20);
        if (!index) return why = core_at + ".pus: " + pu.dump() + " is not an OS index of a PU", std::nullopt;
        m.pus.push_back(*index);
      }
      const std::optional<int> kind = c.contains("kind") ? small_integer(c["kind"], -1, 1 << 10) : -1;
      if (!kind) return why = core_at + ".kind: expected a CPU kind number", std::nullopt;
      m.kind = *kind;
      const std::optional<double> seconds = finite_number(c, "seconds", 0.0);
      if (!seconds || *seconds < 0) return why = core_at + ".seconds: expected a number >= 0", std::nullopt;
      m.seconds = *seconds;
      const std::optional<double> vp = finite_number(c, "vp", 0.0);
      if (!vp || *vp <= 0 || *vp > 1)
        return why = core_at + ".vp: " + c["vp"].dump() + "; valid: 0 < vp <= 1", std::nullopt;
      m.vp = *vp;
      info.cores.push_back(std::move(m));
    }
    malformed = false;
    return info;
  } catch (const std::exception& e) {  // allocation failure
    return why = path + ": " + e.what(), std::nullopt;
  }
}

std::optional<system_information> read_sia(const std::string& path, const std::string& signature, std::string& why,
                                           bool& malformed) noexcept {
  malformed = false;
  if (access(path.c_str(), F_OK) != 0) return why = "no file " + path, std::nullopt;
  const std::optional<json> read = read_json_file(path, why);
  if (!read) return malformed = true, std::nullopt;
  return parse_sia(*read, path, signature, why, malformed);
}

bool write_sia(const std::string& path, const system_information& info, std::string& error) {
  json file = {{"selfsched_sia", 1}, {"machines", json::object()}};
  std::string unreadable;
  if (std::optional<json> old = read_json_file(path, unreadable);
      old && old->is_object() && old->contains("machines") && (*old)["machines"].is_object())
    file["machines"] = std::move((*old)["machines"]);
  json cores = json::array();
  for (const core_measurement& c : info.cores)
    cores.push_back({{"core", c.core}, {"pus", c.pus}, {"kind", c.kind}, {"seconds", c.seconds}, {"vp", c.vp}});
  file["machines"][info.machine] = {{"kernel", info.kernel},
                                    {"measured", info.measured},
                                    {"heterogeneity_ratio", info.heterogeneity_ratio},
                                    {"cores", std::move(cores)}};

  return write_file_atomically(path, file.dump(2) + "\n", 0644, error);
}

}  // namespace selfsched::omp

// Fuzzes the settings grammar: an input "NAME=value" is one SELFSCHED_*
// variable as the settings table parses it, and the value also as a
// schedule (OMP_SCHEDULE, SELFSCHED_SCHEDULE, selfsched_set_schedule).
// A schedule that parses must name itself: its canonical name, with its
// minimum chunk, parses again to the same schedule.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "selfsched/core/spec.hpp"
#include "selfsched/settings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t equals = input.find('=');
  const std::string_view name = input.substr(0, equals);
  const std::string_view value = equals == std::string_view::npos ? std::string_view{} : input.substr(equals + 1);

  selfsched::omp::settings s;
  (void)selfsched::omp::parse_setting(name, value, s);

  const selfsched::parse_result parsed = selfsched::parse_schedule(value);
  if (parsed.ok()) {
    const std::string name = parsed.spec.name();
    const std::int64_t chunk = parsed.spec.min_chunk;
    const selfsched::parse_result again =
        selfsched::parse_schedule(chunk > 0 ? name + "," + std::to_string(chunk) : name);
    if (!again.ok() || again.spec.name() != name || again.spec.min_chunk != chunk) __builtin_trap();
  } else if (parsed.error.empty()) {
    __builtin_trap();
  }
  return 0;
}

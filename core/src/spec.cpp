// Parsing "sw-fss-80,4" into a schedule_spec.
#include "selfsched/core/spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <string>

#include "selfsched/core/registry.hpp"

namespace selfsched {
namespace {

std::string lowercase_trimmed(std::string_view text) {
  const auto blank = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

enum class number { positive, not_positive, too_large };

number parse_positive(std::string_view digits, std::int64_t& value) {
  if (digits.empty() || digits.front() == '-') return number::not_positive;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (end != digits.data() + digits.size()) return number::not_positive;
  if (ec == std::errc::result_out_of_range) return number::too_large;
  return ec == std::errc{} && value > 0 ? number::positive : number::not_positive;
}

std::string unknown(std::string_view what) {
  return "unknown technique '" + std::string(what) + "'; valid: " + catalog_names() +
         " (prefixes w-, s-, sw-; suffixes -1..-100, -auto; optional ,chunk)";
}

}  // namespace

std::string schedule_spec::name() const {
  std::string out;
  if (synchronized) out += 's';
  if (weighted) out += 'w';
  if (!out.empty()) out += '-';
  out += base ? base->name : "?";
  if (alpha_auto) out += "-auto";
  else if (alpha_percent > 0) out += "-" + std::to_string(alpha_percent);
  return out;
}

parse_result parse_schedule(std::string_view text) {
  parse_result result;
  schedule_spec& spec = result.spec;
  std::string whole = lowercase_trimmed(text);
  std::string_view name = whole;

  if (const auto comma = name.find(','); comma != std::string_view::npos) {
    const std::string chunk = lowercase_trimmed(name.substr(comma + 1));
    if (const number read = parse_positive(chunk, spec.min_chunk); read != number::positive) {
      result.error = "chunk '" + chunk + "' in '" + whole + "' is " +
                     (read == number::too_large ? "too large (at most " + std::to_string(INT64_MAX) + ")"
                                                : "not a positive integer");
      return result;
    }
    name = name.substr(0, comma);
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.remove_suffix(1);
  }
  if (name.empty()) {
    result.error = unknown(name);
    return result;
  }

  // Prefixes name mechanisms; "ss" is a technique, "s-" is not.
  for (const auto& [prefix, s, w] : {std::tuple{"sw-", true, true}, std::tuple{"ws-", true, true},
                                     std::tuple{"s-", true, false}, std::tuple{"w-", false, true}}) {
    if (name.starts_with(prefix)) {
      spec.synchronized = s;
      spec.weighted = w;
      name.remove_prefix(std::string_view(prefix).size());
      break;
    }
  }

  for (const char* prefix : {"sw-", "ws-", "s-", "w-"})
    if ((spec.weighted || spec.synchronized) && name.starts_with(prefix)) {
      result.error = "'" + whole + "' names more than one mechanism prefix; valid: one of w-, s-, sw-";
      return result;
    }

  spec.base = find_technique(name);
  if (spec.base == nullptr) {
    // A suffix "-auto" or "-NN" names the alpha mechanism.
    const auto dash = name.rfind('-');
    if (dash != std::string_view::npos) {
      const std::string_view suffix = name.substr(dash + 1);
      std::int64_t percent = 0;
      if (suffix == "auto") {
        spec.alpha_auto = true;
      } else if (parse_positive(suffix, percent) == number::positive) {
        if (percent > 100) {
          result.error = "alpha " + std::string(suffix) + " in '" + whole +
                         "' is out of range; valid: 1..100 or auto";
          return result;
        }
        spec.alpha_percent = static_cast<int>(percent);
      }
      if (spec.alpha_auto || spec.alpha_percent > 0) spec.base = find_technique(name.substr(0, dash));
    }
  }
  if (spec.base == nullptr) result.error = unknown(name);
  return result;
}

}  // namespace selfsched

// How selfsched's libraries read their SELFSCHED_* variables: one table of
// rows (name, default, parser, doc) per library, read once; an invalid value
// is said once by name and value and the row's default stays. libselfsched
// holds the functions the tables share (the seam of bridge.hpp); the MPI
// layer builds its own table with them. Not an interface for applications.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace selfsched::omp::bridge {

// The value of a SELFSCHED_* variable, or nullptr when it is unset or empty
// (`VAR= program`, what ctest and many scripts do to clear one, means the
// default), or when the program runs set-uid (secure_getenv).
const char* setting_value(const char* name);

// Variables in the environment that start with SELFSCHED_, are not among
// `valid` (count names), and are within two edits of one that is (a
// misspelling, not another program's variable): each said once, with it.
void report_misspelt_settings(const char* const* valid, std::size_t count);

// One line on stderr prefixed "selfsched: "; at most a few dozen per process.
void warn(const char* format, ...) __attribute__((format(printf, 1, 2)));

// The rows' value parsers: each stores the value, or returns why it cannot
// ("valid: ...") and leaves `out` alone.
inline std::string parse_bool(std::string_view v, bool& out) {
  for (const char* yes : {"1", "true", "yes", "on"})
    if (v == yes) return out = true, "";
  for (const char* no : {"0", "false", "no", "off"})
    if (v == no) return out = false, "";
  return "valid: true, false, 1, 0, yes, no, on, off";
}

// One of two words: `out` = (v == first), the default listed first.
inline std::string parse_either(std::string_view v, bool& out, std::string_view first, std::string_view second) {
  if (v == first || v == second) return out = v == first, "";
  return "valid: " + std::string(first) + ", " + std::string(second);
}

inline std::string parse_real(std::string_view v, double& out, double lowest, bool inclusive) {
  const std::string text(v);
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(x) || x < lowest || (!inclusive && x == lowest))
    return std::string("valid: a finite number ") + (inclusive ? ">= " : "> ") + std::to_string(lowest);
  out = x;
  return "";
}

inline std::string parse_count(std::string_view v, std::int64_t& out) {
  const std::string text(v);
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || x < 0) return "valid: an integer >= 0";
  out = x;
  return "";
}

// One row: the variable, its default as the user reads it, one line of doc,
// and the parser that stores a value into S or returns why it cannot.
template <typename S>
struct setting_row {
  const char* name;
  const char* default_text;
  const char* doc;
  std::string (*parse)(std::string_view value, S& s);
};

// Every row's variable, read once: an invalid value is reported (when
// `report`) by name and value, and the row's default stays.
template <typename S, std::size_t N>
S read_setting_rows(const setting_row<S> (&rows)[N], bool report = true) {
  if (report) {
    std::vector<const char*> names;
    for (const setting_row<S>& r : rows) names.push_back(r.name);
    report_misspelt_settings(names.data(), names.size());
  }
  S s;
  for (const setting_row<S>& r : rows) {
    const char* value = setting_value(r.name);
    if (value == nullptr) continue;
    S attempt = s;
    if (const std::string error = r.parse(value, attempt); !error.empty()) {
      if (report) warn("%s='%s' is invalid (%s); using the default, %s", r.name, value, error.c_str(), r.default_text);
    } else {
      s = std::move(attempt);
    }
  }
  return s;
}

// The rows with the values in force (SELFSCHED_DISPLAY_ENV), on stderr.
template <typename S, std::size_t N>
void print_setting_rows(const setting_row<S> (&rows)[N]) {
  for (const setting_row<S>& r : rows) {
    const char* value = setting_value(r.name);
    std::fprintf(stderr, "  %s = '%s'%s\n      %s\n", r.name, value ? value : r.default_text,
                 value ? "" : " (default)", r.doc);
  }
}

}  // namespace selfsched::omp::bridge

// Reading and writing the files selfsched keeps (the SIA file, profiles, the
// auto cache), safely for a library that runs inside other people's
// programs: every read is bounded and never throws, every write replaces the
// file atomically through a temporary that a planted symlink cannot
// redirect. Shared by libselfsched and the tools (selfsched_machine).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace selfsched::omp {

constexpr std::size_t largest_read_bytes = 16u << 20;  // 16 MiB
constexpr int deepest_json = 32;                        // nesting levels

// The file at `path` as JSON, or nullopt and why (one phrase naming the
// file): only a regular file of at most largest_read_bytes, nested at most
// deepest_json levels. No exception leaves it.
std::optional<nlohmann::json> read_json_file(const std::string& path, std::string& why) noexcept;

// The same checks on text already read (`name` names it in `why`).
std::optional<nlohmann::json> parse_json_text(std::string_view text, const std::string& name,
                                              std::string& why) noexcept;

// Replaces `path` with `content`: the parent directories are made (mode
// 0700), the content goes to a new temporary in the same directory
// (mkstemp: O_CREAT | O_EXCL, so a planted symlink is never followed), gets
// `mode`, and is renamed over `path`. false and why (naming the file and the
// system's error) otherwise. No exception leaves it.
bool write_file_atomically(const std::string& path, const std::string& content, mode_t mode,
                           std::string& why) noexcept;

// Could write_file_atomically write `path` now? Its nearest existing
// directory must be one we may write and enter. false and why otherwise.
// For a check at start, so that a long job learns early, not at exit.
bool can_write_file(const std::string& path, std::string& why) noexcept;

// $XDG_CACHE_HOME/selfsched/NAME, else $HOME/.cache/selfsched/NAME; `setting`
// when given (a leading ~/ is the home directory), "" for "off" or when no
// path can be formed: no XDG_CACHE_HOME and no home directory that exists.
std::string cache_file_path(const std::string& setting, const char* name);

}  // namespace selfsched::omp

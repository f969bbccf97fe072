// Reading and writing the files selfsched keeps (the SIA file, profiles, the
// auto cache), safely for a library that runs inside other people's
// programs: every read is bounded and never throws, every write replaces the
// file atomically through a temporary that a planted symlink cannot
// redirect. Shared by libselfsched and the tools (selfsched_machine).
#pragma once

#include <sys/types.h>

#include <chrono>
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

// How long a writer waits for the reader of a FIFO, pipe or terminal to
// take something before it gives up on the rest.
constexpr std::chrono::milliseconds stream_patience{10'000};

// Replaces `path` with `content`: the parent directories are made (mode
// 0700), the content goes to a new temporary in the same directory
// (mkstemp: O_CREAT | O_EXCL, so a planted symlink is never followed), gets
// `mode`, and is renamed over `path`. Only a regular file, a symlink or
// nothing is replaced so: a directory or a block device is refused, and
// the rest is written in place as a stream: a FIFO, a character device or
// a socket at `path`, and a descriptor named (/dev/stdout, /dev/fd/N,
// /proc/self/fd/N, itself or through symlinks; this process's written
// through the descriptor itself, after what stdio buffered for it). A
// stream is never waited on for a reader that is not there (a FIFO nobody
// reads is refused at once) or one that takes nothing for `patience`, and
// a reader that leaves fails the write (EPIPE), never raising SIGPIPE.
// false and why (naming the file and the system's error) otherwise; it
// always returns. No exception leaves it.
bool write_file_atomically(const std::string& path, const std::string& content, mode_t mode, std::string& why,
                           std::chrono::milliseconds patience = stream_patience) noexcept;

// "" when `path` is what write_file_atomically replaces (a regular file, a
// symlink, or nothing); else what it is: "a FIFO", "a directory", "a
// character device", ..., "a descriptor" (/dev/stdout). For files that
// must be read back (a cache), which a stream cannot be.
std::string not_a_file_to_replace(const std::string& path);

// Could write_file_atomically write `path` now? Not a directory or a block
// device, and, to be replaced, its nearest existing directory one we may
// write and enter (a stream is written in place: true). false and why
// otherwise.
// For a check at start, so that a long job learns early, not at exit.
bool can_write_file(const std::string& path, std::string& why) noexcept;

// $XDG_CACHE_HOME/selfsched/NAME, else $HOME/.cache/selfsched/NAME; `setting`
// when given (a leading ~/ is the home directory), "" for "off" or when no
// path can be formed: no XDG_CACHE_HOME and no home directory that exists.
std::string cache_file_path(const std::string& setting, const char* name);

}  // namespace selfsched::omp

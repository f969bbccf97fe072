#include "selfsched/machine/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace selfsched::omp {

namespace {

std::string error_text(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// mkdir -p, each new level 0700; existing levels are left as they are.
bool make_parents(const std::string& path, std::string& why) {
  for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return why = error_text("cannot create", dir), false;
  }
  return true;
}

}  // namespace

std::optional<nlohmann::json> read_json_file(const std::string& path, std::string& why) noexcept {
  try {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return why = error_text("cannot open", path), std::nullopt;
    struct stat st {};
    std::string text;
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    const bool small = regular && static_cast<std::size_t>(st.st_size) <= largest_read_bytes;
    if (small) {
      text.resize(static_cast<std::size_t>(st.st_size));
      std::size_t got = 0;
      for (ssize_t n; got < text.size() && (n = read(fd, text.data() + got, text.size() - got)) > 0;)
        got += static_cast<std::size_t>(n);
      text.resize(got);
    }
    close(fd);
    if (!regular) return why = path + " is not a regular file", std::nullopt;
    if (!small) return why = path + " is larger than " + std::to_string(largest_read_bytes >> 20) + " MiB", std::nullopt;
    return parse_json_text(text, path, why);
  } catch (const std::exception& e) {  // allocation failure
    return why = path + ": " + e.what(), std::nullopt;
  }
}

std::optional<nlohmann::json> parse_json_text(std::string_view text, const std::string& name,
                                              std::string& why) noexcept {
  try {
    if (text.size() > largest_read_bytes)
      return why = name + " is larger than " + std::to_string(largest_read_bytes >> 20) + " MiB", std::nullopt;
    bool too_deep = false;
    nlohmann::json parsed = nlohmann::json::parse(
        text,
        [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
          if (depth > deepest_json) too_deep = true;
          return !too_deep;
        },
        /*allow_exceptions=*/false);
    if (too_deep) return why = name + " nests deeper than " + std::to_string(deepest_json) + " levels", std::nullopt;
    if (parsed.is_discarded()) return why = name + " is not valid JSON", std::nullopt;
    return parsed;
  } catch (const std::exception& e) {  // allocation failure
    return why = name + ": " + e.what(), std::nullopt;
  }
}

bool can_write_file(const std::string& path, std::string& why) noexcept {
  try {
    const auto parent_of = [](const std::string& p) -> std::string {
      const std::size_t slash = p.find_last_of('/');
      return slash == std::string::npos ? "." : slash == 0 ? "/" : p.substr(0, slash);
    };
    std::string dir = parent_of(path);
    struct stat st {};
    while (stat(dir.c_str(), &st) != 0) {  // write_file_atomically makes the missing ones
      if (errno != ENOENT) return why = error_text("cannot reach", dir), false;
      dir = parent_of(dir);
    }
    if (!S_ISDIR(st.st_mode)) return why = dir + " is not a directory", false;
    if (access(dir.c_str(), W_OK | X_OK) != 0) return why = error_text("cannot write in", dir), false;
    return true;
  } catch (const std::exception& e) {  // allocation failure
    return why = e.what(), false;
  }
}

bool write_file_atomically(const std::string& path, const std::string& content, mode_t mode,
                           std::string& why) noexcept {
  try {
    if (!make_parents(path, why)) return false;
    std::vector<char> temporary(path.begin(), path.end());
    for (const char c : std::string(".XXXXXX")) temporary.push_back(c);
    temporary.push_back('\0');
    const int fd = mkostemp(temporary.data(), O_CLOEXEC);
    if (fd < 0) return why = error_text("cannot create a temporary file beside", path), false;
    bool ok = fchmod(fd, mode) == 0;
    for (std::size_t done = 0; ok && done < content.size();) {
      const ssize_t n = write(fd, content.data() + done, content.size() - done);
      ok = n > 0;
      if (ok) done += static_cast<std::size_t>(n);
    }
    if (!ok) why = error_text("cannot write", temporary.data());
    if (close(fd) != 0 && ok) ok = false, why = error_text("cannot write", temporary.data());
    if (ok && rename(temporary.data(), path.c_str()) != 0) ok = false, why = error_text("cannot replace", path);
    if (!ok) unlink(temporary.data());
    return ok;
  } catch (const std::exception& e) {
    return why = path + ": " + e.what(), false;
  }
}

std::string cache_file_path(const std::string& setting, const char* name) {
  if (setting == "off") return {};
  // A home that does not exist (system users' HOME=/nonexistent) is not made:
  // the writer would create it, as root at the top of the file system.
  const char* home = std::getenv("HOME");
  struct stat home_status {};
  if (home != nullptr && (stat(home, &home_status) != 0 || !S_ISDIR(home_status.st_mode))) home = nullptr;
  if (!setting.empty()) {
    if (setting.rfind("~/", 0) == 0) return home != nullptr ? home + setting.substr(1) : std::string();
    return setting;
  }
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache == '/')
    return std::string(cache) + "/selfsched/" + name;
  if (home != nullptr && *home != '\0') return std::string(home) + "/.cache/selfsched/" + name;
  return {};
}

}  // namespace selfsched::omp

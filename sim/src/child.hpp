// SimGrid keeps one engine per process, so every simulation runs in a child
// process of its own; its result comes back through a pipe as bytes.
#pragma once

#include <cstring>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace selfsched::sim::detail {

// Runs `run` in a child process and returns the bytes it returned there. A
// sim_error it threw is thrown again here; a child that failed otherwise
// gives std::runtime_error.
std::string in_child(const std::function<std::string()>& run);

// Plain values and vectors of them, appended to and read back from bytes.
class bytes_out {
 public:
  template <typename T> bytes_out& put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    text_.append(reinterpret_cast<const char*>(&value), sizeof value);
    return *this;
  }
  template <typename T> bytes_out& put(const std::vector<T>& values) {
    put(static_cast<std::uint64_t>(values.size()));
    if (!values.empty()) text_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    return *this;
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

class bytes_in {
 public:
  explicit bytes_in(const std::string& text) : text_(text) {}
  template <typename T> void get(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    take(&value, sizeof value);
  }
  template <typename T> void get(std::vector<T>& values) {
    std::uint64_t count = 0;
    get(count);
    if (count > (text_.size() - at_) / sizeof(T)) throw std::runtime_error("selfsched-sim: a short result");
    values.resize(static_cast<std::size_t>(count));
    take(values.data(), values.size() * sizeof(T));
  }

 private:
  void take(void* to, std::size_t size) {
    if (size == 0) return;  // an empty vector's data() may be null
    if (size > text_.size() - at_) throw std::runtime_error("selfsched-sim: a short result");
    std::memcpy(to, text_.data() + at_, size);
    at_ += size;
  }
  const std::string& text_;
  std::size_t at_ = 0;
};

}  // namespace selfsched::sim::detail

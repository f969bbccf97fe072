#include "output_relay.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace selfsched::cluster {
namespace {

// Descriptors this module keeps: from a little under the process's limit,
// where the program's own (numbered lowest first) do not reach.
int high_descriptor_floor() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur < 128) return -1;
  const rlim_t top = limit.rlim_cur == RLIM_INFINITY ? 1 << 20 : limit.rlim_cur;
  return static_cast<int>(top - 16);
}

int move_high(int fd) {
  const int floor = high_descriptor_floor();
  if (fd < 0 || floor < 0) return -1;
  const int high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
  close(fd);
  return high;
}

std::uint64_t size_of(int fd) {
  struct stat st{};
  return fd >= 0 && fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

void write_all(int fd, const std::byte* bytes, std::size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the program closed it, or no reader: as its own write would have failed
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
}

}  // namespace

bool output_relay::set_up() {
  for (int i = 0; i < 2; ++i) {
    catch_[i] = move_high(memfd_create(i == 0 ? "selfsched-stdout" : "selfsched-stderr", MFD_CLOEXEC));
    // Appended to at its end whatever descriptor 1's offset: emptied, it starts again at 0.
    if (catch_[i] < 0 || fcntl(catch_[i], F_SETFL, O_APPEND) != 0) {
      for (int& fd : catch_)
        if (fd >= 0) close(fd), fd = -1;
      return false;
    }
  }
  return true;
}

void output_relay::begin_region() {
  taken_ = 0;
  if (!ready()) return;
  for (int i = 0; i < 2; ++i) {
    saved_[i] = fcntl(1 + i, F_DUPFD_CLOEXEC, high_descriptor_floor() - 8);
    dup2(catch_[i], 1 + i);
  }
}

void output_relay::end_region() {
  for (int i = 0; i < 2; ++i) {
    if (saved_[i] < 0) continue;
    dup2(saved_[i], 1 + i);
    close(saved_[i]);
    saved_[i] = -1;
  }
}

std::uint64_t output_relay::pending() const { return size_of(catch_[0]) + size_of(catch_[1]); }

std::vector<std::byte> output_relay::take() {
  const std::uint64_t lengths[2] = {size_of(catch_[0]), size_of(catch_[1])};
  std::vector<std::byte> blob(sizeof lengths + lengths[0] + lengths[1]);
  std::memcpy(blob.data(), lengths, sizeof lengths);
  std::size_t at = sizeof lengths;
  for (int i = 0; i < 2; ++i) {
    std::uint64_t done = 0;
    while (done < lengths[i]) {
      const ssize_t n = pread(catch_[i], blob.data() + at + done, lengths[i] - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::uint64_t>(n);
    }
    at += lengths[i];
    (void)!ftruncate(catch_[i], 0);
  }
  taken_ += lengths[0] + lengths[1];
  return blob;
}

void output_relay::drop() {
  for (int fd : catch_)
    if (fd >= 0) (void)!ftruncate(fd, 0);
  taken_ = 0;
}

void output_relay::write_out(std::span<const std::byte> blob) const {
  std::uint64_t lengths[2] = {0, 0};
  if (blob.size() < sizeof lengths) return;
  std::memcpy(lengths, blob.data(), sizeof lengths);
  if (lengths[0] + lengths[1] != blob.size() - sizeof lengths) return;
  write_all(saved_[0] >= 0 ? saved_[0] : 1, blob.data() + sizeof lengths, lengths[0]);
  write_all(saved_[1] >= 0 ? saved_[1] : 2, blob.data() + sizeof lengths + lengths[0], lengths[1]);
}

void output_relay::exit_in_region(int rank, int error_fd) {
  if (saved_[0] < 0) return;  // not in a shared region
  const std::vector<std::byte> blob = take();
  if (rank == 0) {
    write_out(blob);
  } else {
    std::uint64_t lengths[2];
    std::memcpy(lengths, blob.data(), sizeof lengths);
    write_all(error_fd, blob.data() + sizeof lengths + lengths[0], lengths[1]);
  }
  end_region();
}

}  // namespace selfsched::cluster

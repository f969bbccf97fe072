#include "child.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "selfsched/sim.hpp"

namespace selfsched::sim::detail {
namespace {

void write_all(int fd, const char* p, std::size_t left) {
  while (left > 0) {
    const ssize_t wrote = ::write(fd, p, left);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) _exit(3);
    p += wrote;
    left -= static_cast<std::size_t>(wrote);
  }
}

bool read_all(int fd, char* p, std::size_t left) {
  while (left > 0) {
    const ssize_t got = ::read(fd, p, left);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    left -= static_cast<std::size_t>(got);
  }
  return true;
}

}  // namespace

// The pipe carries a status byte (0: result, 1: sim_error), a length and
// the bytes (the result, or the error's message).
std::string in_child(const std::function<std::string()>& run) {
  std::fflush(nullptr);  // or the child would write what the parent buffered
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("selfsched-sim: pipe: ") + std::strerror(errno));
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error(std::string("selfsched-sim: fork: ") + std::strerror(errno));
  if (child == 0) {
    close(fds[0]);
    char status = 0;
    std::string bytes;
    try {
      bytes = run();
    } catch (const std::exception& e) {
      bytes = e.what();
      status = 1;
    }
    const std::uint64_t length = bytes.size();
    write_all(fds[1], &status, 1);
    write_all(fds[1], reinterpret_cast<const char*>(&length), sizeof length);
    write_all(fds[1], bytes.data(), bytes.size());
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  char status = -1;
  std::uint64_t length = 0;
  std::string bytes;
  bool ok = read_all(fds[0], &status, 1) && read_all(fds[0], reinterpret_cast<char*>(&length), sizeof length) &&
            length < (std::uint64_t{1} << 40);
  if (ok) {
    bytes.resize(static_cast<std::size_t>(length));
    ok = read_all(fds[0], bytes.data(), bytes.size());
  }
  close(fds[0]);
  int wait_status = 0;
  waitpid(child, &wait_status, 0);
  if (ok && status == 1) throw sim_error(bytes);
  if (!ok || !WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0)
    throw std::runtime_error("selfsched-sim: the simulation process failed (status " + std::to_string(wait_status) +
                             ")");
  return bytes;
}

}  // namespace selfsched::sim::detail

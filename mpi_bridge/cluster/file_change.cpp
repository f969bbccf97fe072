#include "file_change.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <span>

#include "allocation.hpp"
#include "private_view.hpp"
#include "program.hpp"

namespace selfsched::cluster {
namespace {

thread_local int initial __attribute__((tls_model("initial-exec"))) = -1;  // -1: not known yet

bool on_initial_thread() {
  if (initial < 0) initial = syscall(SYS_gettid) == getpid() ? 1 : 0;
  return initial == 1;
}

std::span<const std::byte> bytes_of(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

// Every rank at the same change before rank 0 makes it; a rank whose
// program is making another one means the ranks' serial code diverged.
void meet(cluster_process& p, const file_change& change) {
  runtime_scope scope;
  const std::string mine = change.what();
  const auto all = p.exchange_file_change(bytes_of(mine));
  for (int q = 1; q < p.ranks(); ++q) {
    const auto& theirs = all[static_cast<std::size_t>(q)];
    const std::string other(reinterpret_cast<const char*>(theirs.data()), theirs.size());
    if (other == mine) continue;
    const std::string zero(reinterpret_cast<const char*>(all[0].data()), all[0].size());
    if (p.rank() != 0) for (;;) pause();  // rank 0 stops the job
    p.stop("selfsched-mpirun --cluster: the ranks' programs went different ways: rank 0's " + zero + " while rank " +
           std::to_string(q) + "'s " + other + "; stopping the job");
  }
}

// Rank 0 tells its outcome; every rank returns it.
outcome rank_zero_outcome(cluster_process& p, const outcome& mine) {
  const std::size_t bytes = p.rank() == 0 ? sizeof mine : 0;
  const auto all = p.exchange_file_change(std::as_bytes(std::span(&mine, 1)).first(bytes));
  outcome zero;
  std::memcpy(&zero, all[0].data(), sizeof zero);
  return zero;
}

// `fd` renumbered `wanted` when that number is free here.
std::int64_t renumber(std::int64_t fd, std::int64_t wanted) {
  if (fd == wanted || wanted < 0 || fcntl(static_cast<int>(wanted), F_GETFD) != -1) return fd;
  const int cloexec = fcntl(static_cast<int>(fd), F_GETFD) & FD_CLOEXEC;
  if (dup3(static_cast<int>(fd), static_cast<int>(wanted), cloexec ? O_CLOEXEC : 0) < 0) return fd;
  close(static_cast<int>(fd));
  return wanted;
}

[[noreturn]] void private_copy_failed(cluster_process& p, const file_change& change, const std::string& why) {
  runtime_scope scope;
  p.stop("selfsched-mpirun --cluster: rank " + std::to_string(p.rank()) + "'s program " + change.what() +
         ", but the rank cannot keep its private copy under " + the_private_view()->root() + ": " + why +
         "; stopping the job");
}

// Without rank 0's word (a replicated region): this rank's own outcome is
// what rank 0's would be.
outcome privately(cluster_process& p, file_change& change) {
  const std::string prepared = change.prepare();
  if (!prepared.empty()) private_copy_failed(p, change, prepared);
  return change.on_private();
}

outcome agreed(cluster_process& p, file_change& change) {
  std::string prepared;
  if (p.rank() != 0) prepared = change.prepare();
  meet(p, change);
  if (p.rank() == 0) return rank_zero_outcome(p, change.on_real());
  const outcome zero = rank_zero_outcome(p, {});
  if (change.rank_zero_only()) return zero;
  if (zero.value < 0) {
    change.undo();
    return zero;
  }
  if (!prepared.empty()) private_copy_failed(p, change, prepared);
  outcome mine = change.on_private();
  if (mine.value < 0) private_copy_failed(p, change, std::strerror(mine.error));
  if (change.gives_descriptor()) mine.value = renumber(mine.value, zero.value);
  return mine;
}

outcome on_this_rank(cluster_process& p, file_change& change) {
  region_state& r = p.region();
  if (r.active && r.shared) {  // this rank's iterations
    const outcome o = change.on_real();
    if (o.value >= 0)
      if (const std::string fresh = change.fresh_path(); !fresh.empty()) p.note_fresh_file(fresh, static_cast<int>(o.value));
    return o;
  }
  if (in_serial_code(p) && p.ranks() > 1) return agreed(p, change);
  if (p.rank() == 0) return change.on_real();
  return privately(p, change);
}

}  // namespace

bool in_serial_code(cluster_process& p) { return !p.region().active && on_initial_thread(); }

outcome carry_out(file_change& change) {
  const outcome o = on_this_rank(*cluster_process::get(), change);
  if (o.value < 0) errno = o.error;
  return o;
}

}  // namespace selfsched::cluster

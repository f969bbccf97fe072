// The channel between a program in cluster mode and its rank's agent
// (agent.cpp): one shared-memory file, made by the agent before it starts
// the program. MPI stays in the agent: once a process has called MPI_Init,
// its heap and mappings no longer match the other ranks' (Open MPI allocates
// by rank), and the program's must match byte for byte.
//
// One request at a time: the program writes its request and bumps
// `request_seq`, the agent answers and bumps `reply_seq`; each side sleeps
// on the other's word (futex) after a short spin. Bulk data (page diffs,
// reduction values) goes through two areas of the same file: what this rank
// sends, and what the agent received from every rank.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace selfsched::cluster {

enum class request_kind : std::uint32_t {
  none = 0,
  exchange,        // every rank's outgoing bytes to every rank (allgather): merges
  gather,          // every rank's outgoing bytes to rank 0 (reductions)
  barrier,         // every rank here
  loop_begin,      // a dynamic loop starts: args n, site hash; text its description
  next_outer,      // its next outer chunk: results start, size
  progress,        // args loop, left, size: result 0 when the rest is not wanted
  loop_end,
  parallel_end,    // a parallel region that had dynamic loops ended
  file_change,     // as exchange, from serial code changing a file (private_files.cpp)
  fatal,           // text: stop the job with this message
  single_claim,    // args region, count: result single_claims::outcome (single_claims.hpp)
};

inline constexpr std::uint32_t channel_magic = 0x53534348;  // "SSCH"
inline constexpr int channel_max_ranks = 4096;
// How many `single` constructs apart a region's threads may be, and the
// answers to a single_claim (single_claims.hpp).
inline constexpr std::uint64_t single_claim_slots = 4096;
enum class single_claim_outcome : std::int64_t { taken = 1, taken_elsewhere = 0, too_far_apart = -1, by_turns = 2 };

struct received_block {
  std::uint64_t offset = 0;  // in the incoming area
  std::uint64_t bytes = 0;
};

struct channel_control {
  std::uint32_t magic = 0;
  std::int32_t rank = 0, ranks = 1;
  alignas(64) std::atomic<std::uint32_t> request_seq{0};
  alignas(64) std::atomic<std::uint32_t> reply_seq{0};
  // What the agent sleeps on: bumped with every request and by the agent's
  // own signal handlers, so no wake-up is lost.
  alignas(64) std::atomic<std::uint32_t> agent_events{0};
  alignas(64) request_kind kind = request_kind::none;
  std::int64_t args[8] = {};
  std::int64_t results[8] = {};
  std::uint64_t outgoing_bytes = 0;
  char text[4096] = {};
  received_block received[channel_max_ranks];  // exchange, gather (rank 0): where each rank's bytes landed
  // Early writes (early_writes.hpp). The program: `merge_window` is 1 while
  // an exchange carries a shared region's diffs (set with the request), and
  // `shared_window` 1 while its threads compute in a shared region between
  // two synchronization points. Its helper thread sets `applying` while it
  // writes another rank's diffs into memory; a merge waits for it to end.
  std::uint32_t merge_window = 0;
  alignas(64) std::atomic<std::uint32_t> shared_window{0};
  alignas(64) std::atomic<std::uint32_t> applying{0};
  // The agent puts another rank's diffs in the early area, sets
  // `early_bytes` and bumps `early_seq`; the helper bumps `early_done` when
  // they are applied (or refused: the window had ended).
  alignas(64) std::atomic<std::uint32_t> early_seq{0};
  alignas(64) std::atomic<std::uint32_t> early_done{0};
  std::uint64_t early_bytes = 0;
};

// The file's layout.
struct channel_layout {
  static constexpr std::size_t control_bytes = std::size_t{1} << 20;
  static constexpr std::size_t outgoing_bytes = std::size_t{16} << 30;
  static constexpr std::size_t incoming_bytes = std::size_t{48} << 30;
  static constexpr std::size_t outgoing_offset = control_bytes;
  static constexpr std::size_t incoming_offset = control_bytes + outgoing_bytes;
  static constexpr std::size_t early_bytes = std::size_t{16} << 30;
  static constexpr std::size_t early_offset = incoming_offset + incoming_bytes;
  static constexpr std::size_t total = early_offset + early_bytes;
};

class channel {
 public:
  // Maps the file behind `fd` (MAP_SHARED). ready() false if it cannot.
  explicit channel(int fd);
  ~channel();
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;
  bool ready() const { return base_ != nullptr; }

  channel_control& control() const { return *reinterpret_cast<channel_control*>(base_); }
  std::byte* outgoing() const { return base_ + channel_layout::outgoing_offset; }
  std::byte* incoming() const { return base_ + channel_layout::incoming_offset; }
  std::byte* early() const { return base_ + channel_layout::early_offset; }

  // The program's side: sends control().kind / args / text / outgoing_bytes
  // as set by the caller and waits for the answer.
  void call();
  // The agent's side: waits for the next request (false when `stop` became
  // true, checked when woken); answer() wakes the program.
  bool wait_request(const std::atomic<bool>& stop);
  // The same, calling `idle(context)` every `period_us` microseconds while
  // no request comes (the agent serves other ranks' early writes then).
  bool wait_request(const std::atomic<bool>& stop, void (*idle)(void*), void* context, long period_us);
  void answer();
  // Wakes a wait_request (the agent's own signal handler).
  void wake_agent();

  // The agent creates the file.
  static int create();

  // The first `bytes` of the outgoing or incoming area are about to be
  // written (or read) here: the pages this process has not mapped yet are
  // mapped in one system call (MADV_POPULATE_*), not one fault each, which
  // on a VM can cost as much as copying 20 pages. Each area's mapped part
  // only grows, so a merge no larger than the last costs nothing here.
  void populate(std::byte* area, std::size_t bytes, bool write);

 private:
  std::size_t populated_[2] = {0, 0};  // outgoing, incoming
  std::byte* base_ = nullptr;
  std::uint32_t seen_request_ = 0;
};

}  // namespace selfsched::cluster

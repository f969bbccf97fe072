// Cluster mode inside the program's process: what this rank knows and does.
// The interposed OpenMP entry points (worksharing.cpp, fork.cpp) call these.
#pragma once

#include <atomic>
#include <csetjmp>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "channel.hpp"
#include "modules.hpp"
#include "output_relay.hpp"
#include "page_diff.hpp"
#include "private_view.hpp"
#include "program_heap.hpp"
#include "static_split.hpp"
#include "tracking.hpp"

namespace selfsched::cluster {

// The parallel region the initial thread runs now, if any. Nested regions
// and regions of other threads are each process's own.
struct region_state {
  bool active = false;
  std::uint64_t number = 0; // regions begun so far, this one included: alike on every rank
  bool shared = false;      // threads numbered cluster-wide, loops shared, memory merged
  bool replayed = false;    // running again, replicated, after a conflict
  // Replicated at a site whose replicated runs always wrote the same bytes
  // on every rank: no window of its own, no exchange; its writes are
  // compared with serial code's at the next region that is checked.
  bool unchecked = false;
  const void* site = nullptr;      // the fork's ident_t
  void* microtask = nullptr;
  std::vector<void*> args;
  std::uintptr_t fork_sp = 0;      // the encountering frame's stack pointer: above it, the program's memory
  int local_threads = 1;
  std::optional<cluster_team> team;
  std::atomic<std::uint32_t> flags{0};  // diff_flags seen since the last merge
  std::atomic<bool> replay{false};      // the last synchronization point found a conflict
  std::atomic<bool> abort_here{false};  // a construct that cannot be shared: run again, replicated
  std::string why;                      // the conflict, for the message
  std::uint64_t written_before = 0;     // bytes this process had written (to files, pipes) when the region began
  // Files the region's iterations created or truncated on this rank (an
  // output file per iteration): writing them again from the start, as a
  // replicated run would, leaves them as they are, so their bytes are not
  // output that a run again would repeat.
  struct fresh_file {
    std::string path;
    std::uint64_t device = 0, inode = 0;
  };
  std::mutex fresh_lock;
  std::vector<fresh_file> fresh_files;
  std::vector<private_view::open_copy> copies_before;  // this rank's private copies at the window's start
  std::int64_t started_ns = 0;          // when the region began here
  std::int64_t synchronized_ns = 0;     // time spent in its synchronization points so far
  // Each rank's (computed, synchronized) nanoseconds, as the last
  // synchronization point heard them: at the region's end, what it cost.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> rank_times;
};

// Where the program's memory sits: equal on every rank, or their writes
// cannot be merged page by page. Kept whole (not hashed) so that a
// difference names its part and the first address that differs.
struct memory_layout {
  static constexpr int listed_ranges = 64;  // module data ranges compared one by one; the rest by the hash
  std::uint64_t modules = 0xcbf29ce484222325ULL;  // the modules' writable data ranges, hashed
  std::uint32_t module_ranges = 0;
  address_range module_data[listed_ranges] = {};
  std::uint64_t stack_end = 0, heap_base = 0;
  program_heap::bookkeeping serial{};  // the serial arena's bookkeeping
  std::uint64_t fork_sp = 0;           // the region's encountering frame (0 outside one)
  // The first part that differs between rank `my_rank`'s (this) and rank
  // `other_rank`'s, named with both values; empty when alike.
  std::string difference(const memory_layout& other, int my_rank, int other_rank) const;
  std::uint64_t hash() const;
};

// One thread's place in the region.
struct member_state {
  int thread = 0;     // in this rank's team
  int number = 0;     // in the cluster-wide team
  bool shared = false;
  std::uint64_t singles = 0;  // `single` constructs this thread met in the region
  std::jmp_buf again; // back to the region's start (fork.cpp)
};

class cluster_process {
 public:
  // The process's cluster mode, or nullptr (not started by an agent).
  static cluster_process* get() { return instance_.load(std::memory_order_acquire); }
  static void start();  // the library's constructor
  // The executable's start code reached the C library (startup.cpp): every
  // library's constructor has run. OpenMP's runtime is brought up now, on
  // the runtime's heap, and the initial thread takes the serial arena.
  void begin_program();

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  region_state& region() { return region_; }
  program_heap& heap() { return *heap_; }
  channel& link() { return *channel_; }

  // The threads each rank runs a region with (learned at the first region).
  const std::vector<int>& threads_per_rank();

  // A region of the initial thread begins (shared or replicated) and ends.
  // `threads`: each rank's team. The region is shared when it can be
  // (`shareable`) and its site's record says so (runs_shared); returns that.
  bool begin_region(const void* site, void* microtask, std::vector<void*> args, std::uintptr_t fork_sp,
                    bool shareable, const std::vector<int>& threads);
  void end_region();
  // Shared or replicated, the next time the region at `site` runs: shared
  // until it conflicts, or until what it costs shared (merges included)
  // exceeds what running it whole on every rank would.
  bool runs_shared(const void* site) const;
  // From now on the region at `site` runs replicated (it cannot be shared);
  // false if it did already.
  bool remember_replicated(const void* site);

  // At a synchronization point of a shared region, on this rank's thread 0
  // while the others wait: merge every rank's writes. false: a conflict;
  // this window's writes are undone and region().why says what happened.
  bool merge_shared(bool region_end = false);
  // Has this process written to a file or pipe since the region began,
  // besides what it caught for the merge (output_relay.hpp)?
  bool wrote_output();
  // A shared region's thread opened `path` (absolute) as descriptor `fd`,
  // new or truncated (file_change.cpp).
  void note_fresh_file(const std::string& path, int fd);
  // At the end of a replicated region: every rank takes rank 0's memory.
  void adopt_rank_zero();
  // Back to how the region found memory, to run it again replicated. Every
  // rank calls it; when a rank's region has written output already (which
  // running it again would write twice), the job stops with one message.
  void roll_back_region();

  // Reductions: rank 0 receives every other rank's `bytes` (rank 0 sends none).
  std::vector<std::span<const std::byte>> gather_to_rank_zero(std::span<const std::byte> bytes);

  // One request to the agent about a dynamic loop (channel.hpp): the
  // arguments in, the results out. Any thread may ask; one at a time.
  void ask_agent(request_kind kind, std::initializer_list<std::int64_t> args, std::int64_t* results,
                 const char* text = nullptr);

  // Serial code changing a file (private_files.cpp): every rank's `bytes`
  // to every rank, announced as a file change (the agents check that every
  // rank's program is changing one).
  std::vector<std::span<const std::byte>> exchange_file_change(std::span<const std::byte> bytes);

  // Early writes (early_writes.cpp): while this rank's threads compute in a
  // shared region, another rank that waits at the synchronization point may
  // send its diffs of the window ahead of the merge; a helper thread of this
  // process applies them (page_tracker::apply_early).
  void start_early_writes_helper();
  // The helper's work for one blob the agent put in the channel's early area.
  void apply_early_writes();

  // Ends the job with one message, from the rank that knows.
  [[noreturn]] void stop(const std::string& message);
  // The same when every rank reached the decision: rank 0 says it, the
  // others wait for the job to end.
  [[noreturn]] void stop_everywhere(const std::string& message);
  // One line on the job's standard error (rank 0's, or this rank's own when
  // only it knows).
  void say(const std::string& message);

 private:
  cluster_process() = default;
  bool set_up(std::string& why);
  std::vector<address_range> tracked_ranges() const;
  memory_layout layout() const;
  // At a merge: the job stops, naming what differs, unless every rank's
  // layout (in the merge's headers) is the same.
  void stop_unless_laid_out_alike(const std::vector<std::span<const std::byte>>& blobs);
  std::vector<std::span<const std::byte>> exchange(std::size_t bytes, request_kind kind = request_kind::exchange);
  void reconcile(const std::vector<std::uintptr_t>& written);
  // The helper may apply early writes from open until close; close waits
  // for an apply under way to end (a merge, roll-back or exchange follows).
  void open_shared_window();
  void close_shared_window();
  std::vector<address_range> early_ranges_;  // what the tracker covers in the open window

  static std::atomic<cluster_process*> instance_;
  std::mutex link_lock_;  // one request to the agent at a time
  int rank_ = 0, ranks_ = 1;
  int error_fd_ = 2;
  bool program_begun_ = false;
  channel* channel_ = nullptr;
  program_heap* heap_ = nullptr;
  page_tracker tracker_;
  output_relay relay_;  // rank > 0: a shared region's standard output and error, for rank 0
  void relay_output();  // at a merge where some rank caught output: rank 0 writes it
  std::vector<address_range> module_data_;
  unsigned long long modules_loaded_ = 0;  // the loader's count of loads when module_data_ was made
  // Libraries the program loaded since (dlopen): their writable data is
  // tracked from now on, and its pages are compared like serial code's
  // writes (appended to `written`).
  void track_modules_loaded_since(std::vector<std::uintptr_t>& written);
  bool window_conflicts(const std::vector<std::span<const std::byte>>& blobs);
  void take_rank_zeros_pages_where_they_differ(const std::vector<std::uintptr_t>& pages);
  address_range stack_{};
  std::vector<int> threads_per_rank_;
  std::vector<double> power_per_thread_;  // each rank's, from its power at the first region
  int arena_bound_ = 1;  // arenas that may hold blocks: the serial one and every cluster-wide thread's
  bool reconciled_once_ = false;
  // Some rank's program has memory mapped that is not merged
  // (program_mappings.hpp): regions run replicated. Said once.
  bool unmerged_mappings_ = false, said_unmerged_ = false;
  region_state region_;
  // A replicated region that wrote the same bytes on every rank this many
  // times in a row runs unchecked from then on (its writes are trusted as
  // serial code's are; auto's cache keeps that for the program's next run
  // after one such run): a loop that runs replicated because it is
  // memory-bound then costs what it costs in one process.
  static constexpr unsigned alike_runs_to_trust = 2;
  // What each region's site cost, shared and replicated (max over ranks).
  struct site_record {
    bool unshareable = false;  // it conflicted
    bool replicated = false;   // the choice for its next run
    bool settled = false;      // a replicated run came out slower than the estimate: shared for good
    // Its checked replicated runs: how many in a row wrote the same bytes on
    // every rank, and whether one ever did not (checked for good then).
    unsigned alike_runs = 0;
    bool differed = false;
    bool replicated_unchecked() const { return replicated && !differed && alike_runs >= alike_runs_to_trust; }
    double shared_s = 0, replicated_s = 0;
    // What the profile shows (bridge::add_profile_section).
    std::uint64_t shared_runs = 0, replicated_runs = 0, unchecked_runs = 0, merges = 0, pages_sent = 0, bytes_sent = 0;
    double merge_s = 0;
    std::string why;  // why it cannot be shared, when it cannot
  };
  std::map<const void*, site_record> sites_;
  // The region that ended last, until every rank has heard what its end
  // cost (the next region's first exchange carries it): then its site's
  // record chooses how it runs next.
  struct finished_region {
    const void* site = nullptr;
    bool shared = false, replayed = false;
    std::vector<int> threads;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> rank_times;
    std::uint64_t end_ns = 0;  // this rank's last synchronization point
  };
  std::optional<finished_region> finished_;
  void choose_next_run(const finished_region& f);
 public:
  // The regions as the profile shows them (JSON).
  std::string profile_section() const;
 private:
};

}  // namespace selfsched::cluster

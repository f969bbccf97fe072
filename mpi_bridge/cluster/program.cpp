#include "program.hpp"
#include "program_mappings.hpp"
#include "standard_streams.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <nlohmann/json.hpp>
#include <cmath>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "allocation.hpp"
#include "interposed.hpp"
#include "selfsched/bridge.hpp"  // libselfsched's seam: this rank's power

namespace selfsched::cluster {

std::atomic<cluster_process*> cluster_process::instance_{nullptr};

namespace {

alignas(cluster_process) unsigned char process_storage[sizeof(cluster_process)];

int env_int(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  return *end == '\0' && v >= 0 && v <= INT32_MAX ? static_cast<int>(v) : fallback;
}

// The main thread's stack: [lowest mapped page, top).
address_range main_stack() {
  address_range r{};
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return r;
  char line[512];
  while (std::fgets(line, sizeof line, maps) != nullptr)
    if (std::strstr(line, "[stack]") != nullptr) std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &r.begin, &r.end);
  std::fclose(maps);
  return r;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
  return h;
}

// libomp's omp_get_max_threads (fork.cpp answers the program cluster-wide);
// its first call starts libomp.
int real_max_threads() {
  static const auto real = next_definition<int (*)()>("omp_get_max_threads");
  return real != nullptr ? real() : 1;
}

// This rank's open private copies of files (ranks other than 0).
std::vector<private_view::open_copy> open_private_copies() {
  const private_view* view = the_private_view();
  return view != nullptr ? view->open_copies() : std::vector<private_view::open_copy>{};
}

// Bytes this process has written with write() and its kin (/proc/self/io,
// wchar): a region that wrote any cannot run again without writing them twice.
std::uint64_t bytes_written() {
  const int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[512];
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  const char* at = std::strstr(text, "wchar: ");
  return at != nullptr ? std::strtoull(at + 7, nullptr, 10) : 0;
}

// Standard output's buffer, as rank 0's would be (SELFSCHED_CLUSTER_STDOUT,
// "line:1024" or "full:4096"), in the program's heap now: on every rank the
// same block, whatever file each rank's output goes to.
void buffer_standard_output(program_heap& heap) {
  const char* mode = std::getenv("SELFSCHED_CLUSTER_STDOUT");
  if (mode == nullptr) return;
  const bool lines = std::strncmp(mode, "line:", 5) == 0;
  const long size = std::strtol(mode + 5, nullptr, 10);
  if (size <= 0 || size > (1 << 24)) return;
  void* buffer = heap.allocate(static_cast<std::size_t>(size), 16, 0, false);  // the serial arena: the program's stream
  if (buffer != nullptr) std::setvbuf(stdout, static_cast<char*>(buffer), lines ? _IOLBF : _IOFBF, static_cast<std::size_t>(size));
}

}  // namespace

void cluster_process::start() {
  if (std::getenv("SELFSCHED_CLUSTER_CHANNEL") == nullptr) return;
  // A process the program started (system(), popen()) inherits the
  // environment but not the channel (close-on-exec once set up): it runs as
  // a plain process.
  if (fcntl(env_int("SELFSCHED_CLUSTER_CHANNEL", -1), F_GETFD) < 0) return;
  runtime_scope scope;
  auto* p = new (process_storage) cluster_process;
  std::string why;
  if (!p->set_up(why)) {
    // The agent is waiting for requests: tell it, so the job stops at once.
    if (p->channel_ != nullptr && p->channel_->ready()) p->stop("selfsched-mpirun --cluster: rank " + std::to_string(p->rank_) + ": " + why);
    const std::string line = "selfsched-mpirun --cluster: " + why + "\n";
    (void)!write(p->error_fd_, line.data(), line.size());
    _exit(70);
  }
  instance_.store(p, std::memory_order_release);
}

bool cluster_process::set_up(std::string& why) {
  runtime_scope scope;
  rank_ = env_int("SELFSCHED_CLUSTER_RANK", 0);
  ranks_ = env_int("SELFSCHED_CLUSTER_RANKS", 1);
  error_fd_ = env_int("SELFSCHED_CLUSTER_STDERR", 2);
  const int fd = env_int("SELFSCHED_CLUSTER_CHANNEL", -1);
  channel_ = new channel(fd);
  if (fd < 0 || !channel_->ready() || channel_->control().magic != channel_magic ||
      channel_->control().rank != rank_) {
    why = "the program was not started by selfsched-mpirun --cluster's agent (SELFSCHED_CLUSTER_CHANNEL)";
    return false;
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);  // the program's own children are not cluster mode's
  if (!route_program_allocations()) {
    why = "the program's heap cannot be placed at its fixed address (0x200000000000): something else is mapped there";
    return false;
  }
  heap_ = the_program_heap();
  buffer_standard_output(*heap_);
  const heap_geometry& g = heap_->geometry();
  if (!tracker_.start({g.base, g.base + g.total()}, why)) return false;
  // The program's own modules: their writable data is shared memory.
  modules_loaded_ = loads_so_far();
  for (const module_info& m : loaded_modules()) {
    if (m.runtime) continue;
    for (const address_range& d : m.data) {
      if (!tracker_.add_range(d)) {
        why = "too much static data to keep copies of";
        return false;
      }
      module_data_.push_back(d);
    }
  }
  // The main stack from a little below here up: main()'s locals live there.
  // Without its memory files a rank's shared regions cannot keep their
  // output (output_relay.hpp).
  if (ranks_ > 1 && relay_.set_up())
    std::atexit([] {
      if (cluster_process* p = get(); p != nullptr && p->region_.active && p->region_.shared)
        p->relay_.exit_in_region(p->rank_, p->error_fd_);
    });
  const address_range mapped = main_stack();
  int here = 0;
  stack_ = {std::max(mapped.begin, page_floor(reinterpret_cast<std::uintptr_t>(&here)) - 16 * page_bytes), mapped.end};
  if (stack_.end <= stack_.begin || !tracker_.add_range(stack_)) {
    why = "cannot find the main thread's stack";
    return false;
  }
  return true;
}

void cluster_process::begin_program() {
  {
    runtime_scope scope;
    // libomp starts at the program's first OpenMP call and asks the C
    // library for memory then (qsort's buffer, its message catalog, a
    // directory listing): that must not be the program's.
    real_max_threads();
  }
  set_thread_arena(0, false);
  program_begun_ = true;
  if (ranks_ > 1) start_early_writes_helper();
}

const std::vector<int>& cluster_process::threads_per_rank() {
  runtime_scope scope;
  if (!threads_per_rank_.empty()) return threads_per_rank_;
  if (!program_begun_)
    stop("selfsched-mpirun --cluster: a parallel region began before the program's start code reached the C "
         "library's __libc_start_main (a library's constructor, or a statically linked start): the program's "
         "memory cannot be told from the runtime's there");
  // The first region: every rank says how many threads it runs regions
  // with, and checks that its memory sits where everyone else's does.
  struct hello {
    std::int64_t threads;
    double power;  // the rank's computing power (libselfsched: SELFSCHED_WEIGHTS, SIA file, hwloc CPU kinds)
    memory_layout layout;
  } mine{real_max_threads(), 0, layout()};
  mine.power = omp::bridge::team_power(static_cast<int>(mine.threads));
  std::memcpy(channel_->outgoing(), &mine, sizeof mine);
  const auto all = exchange(sizeof mine);
  for (int q = 0; q < ranks_; ++q) {
    hello h{};
    std::memcpy(&h, all[static_cast<std::size_t>(q)].data(), sizeof h);
    if (const std::string part = mine.layout.difference(h.layout, rank_, q); !part.empty())
      stop_everywhere("selfsched-mpirun --cluster: the program's memory is not laid out alike on rank " +
                      std::to_string(rank_) + " and rank " + std::to_string(q) + " (" + part +
                      "): its writes cannot be merged");
    threads_per_rank_.push_back(static_cast<int>(std::max<std::int64_t>(1, h.threads)));
    power_per_thread_.push_back(h.power > 0 && std::isfinite(h.power) ? h.power / threads_per_rank_.back() : 1.0);
  }
  return threads_per_rank_;
}

void cluster_process::track_modules_loaded_since(std::vector<std::uintptr_t>& written) {
  const unsigned long long loads = loads_so_far();
  if (loads == modules_loaded_) return;
  modules_loaded_ = loads;
  for (const module_info& m : loaded_modules()) {
    if (m.runtime) continue;
    for (const address_range& d : m.data) {
      if (std::any_of(module_data_.begin(), module_data_.end(),
                      [&](const address_range& known) { return known.begin == d.begin; }))
        continue;
      if (!tracker_.add_range(d)) stop_everywhere("selfsched-mpirun --cluster: too much static data to keep copies of "
                                                  "in " + m.path + ", which the program loaded");
      module_data_.push_back(d);
      for (std::uintptr_t page = d.begin; page < d.end; page += page_bytes) written.push_back(page);
    }
  }
}

std::vector<address_range> cluster_process::tracked_ranges() const {
  std::vector<address_range> ranges = module_data_;
  ranges.push_back(stack_);
  for (int arena = 0; arena <= arena_bound_; ++arena) {
    const heap_extent e = heap_->extent(arena);
    if (e.end > e.begin) ranges.push_back({e.begin, e.end});
  }
  return ranges;
}

memory_layout cluster_process::layout() const {
  memory_layout l;
  for (const address_range& d : module_data_) {
    l.modules = mix(mix(l.modules, d.begin), d.end);
    if (l.module_ranges < memory_layout::listed_ranges) l.module_data[l.module_ranges] = d;
    ++l.module_ranges;
  }
  l.stack_end = stack_.end;
  l.heap_base = heap_->geometry().base;
  l.serial = heap_->serial_bookkeeping();
  l.fork_sp = region_.active ? region_.fork_sp : 0;
  return l;
}

namespace {

std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "%#" PRIx64, v);
  return text;
}

struct rank_pair {
  int mine, other;
};

// "<what> is <mine> on rank r and <theirs> on rank q".
std::string both(const std::string& what, const std::string& mine, const std::string& theirs, rank_pair ranks) {
  return what + " is " + mine + " on rank " + std::to_string(ranks.mine) + " and " + theirs + " on rank " +
         std::to_string(ranks.other);
}

std::string range_text(const address_range& r) { return "[" + hex(r.begin) + ", " + hex(r.end) + ")"; }

// The serial arena: the first of its fresh-byte mark and free lists that
// differs. Serial code that allocated more on one rank moves the mark.
std::string serial_difference(const program_heap::bookkeeping& a, const program_heap::bookkeeping& b, rank_pair ranks) {
  if (a.bump != b.bump) {
    const bool mine_more = a.bump > b.bump;
    return both("the serial arena's next fresh byte", hex(a.bump), hex(b.bump), ranks) + ": rank " +
           std::to_string(mine_more ? ranks.mine : ranks.other) + " allocated " +
           std::to_string(mine_more ? a.bump - b.bump : b.bump - a.bump) + " bytes more";
  }
  for (int c = 0; c < program_heap::class_count; ++c)
    if (a.free_lists[c] != b.free_lists[c])
      return both("the first free block of " + std::to_string(program_heap::class_size(c)) + " bytes",
                  hex(a.free_lists[c]), hex(b.free_lists[c]), ranks);
  return both("the first free large block", hex(a.large_free), hex(b.large_free), ranks);
}

std::string modules_difference(const memory_layout& a, const memory_layout& b, rank_pair ranks) {
  const std::uint32_t listed = std::min<std::uint32_t>({a.module_ranges, b.module_ranges, memory_layout::listed_ranges});
  for (std::uint32_t i = 0; i < listed; ++i)
    if (a.module_data[i].begin != b.module_data[i].begin || a.module_data[i].end != b.module_data[i].end)
      return both("data range " + std::to_string(i), range_text(a.module_data[i]), range_text(b.module_data[i]),
                  ranks);
  if (a.module_ranges != b.module_ranges)
    return both("the number of data ranges", std::to_string(a.module_ranges), std::to_string(b.module_ranges),
                ranks);
  return "a data range past the first " + std::to_string(memory_layout::listed_ranges) + " differs";
}

bool same_bookkeeping(const program_heap::bookkeeping& a, const program_heap::bookkeeping& b) {
  return a.bump == b.bump && a.large_free == b.large_free &&
         std::equal(std::begin(a.free_lists), std::end(a.free_lists), std::begin(b.free_lists));
}

}  // namespace

std::string memory_layout::difference(const memory_layout& other, int my_rank, int other_rank) const {
  const rank_pair ranks{my_rank, other_rank};
  if (modules != other.modules) return "the modules' static data: " + modules_difference(*this, other, ranks);
  if (stack_end != other.stack_end)
    return "the main stack: " + both("its top", hex(stack_end), hex(other.stack_end), ranks);
  if (heap_base != other.heap_base)
    return "the heap's place: " + both("its base", hex(heap_base), hex(other.heap_base), ranks);
  if (!same_bookkeeping(serial, other.serial))
    return "what serial code allocated: " + serial_difference(serial, other.serial, ranks);
  if (fork_sp != other.fork_sp)
    return "the stack depth where the region began: " +
           both("the encountering frame", hex(fork_sp), hex(other.fork_sp), ranks);
  return {};
}

std::uint64_t memory_layout::hash() const {
  std::uint64_t h = mix(mix(mix(0xcbf29ce484222325ULL, modules), stack_end), heap_base);
  h = mix(h, serial.bump);
  for (std::uintptr_t head : serial.free_lists) h = mix(h, head);
  return mix(mix(h, serial.large_free), fork_sp);
}

std::vector<std::span<const std::byte>> cluster_process::exchange(std::size_t bytes, request_kind kind) {
  runtime_scope scope;
  close_shared_window();  // nothing is applied early while ranks talk
  std::lock_guard hold(link_lock_);
  channel_control& c = channel_->control();
  c.kind = kind;
  c.outgoing_bytes = bytes;
  channel_->call();
  std::vector<std::span<const std::byte>> all;
  std::size_t end = 0;
  for (int q = 0; q < ranks_; ++q) {
    all.push_back({channel_->incoming() + c.received[q].offset, static_cast<std::size_t>(c.received[q].bytes)});
    end = std::max<std::size_t>(end, c.received[q].offset + c.received[q].bytes);
  }
  channel_->populate(channel_->incoming(), end, false);
  return all;
}

std::vector<std::span<const std::byte>> cluster_process::exchange_file_change(std::span<const std::byte> bytes) {
  runtime_scope scope;
  std::memcpy(channel_->outgoing(), bytes.data(), bytes.size());
  return exchange(bytes.size(), request_kind::file_change);
}

std::vector<std::span<const std::byte>> cluster_process::gather_to_rank_zero(std::span<const std::byte> bytes) {
  runtime_scope scope;
  std::lock_guard hold(link_lock_);
  std::memcpy(channel_->outgoing(), bytes.data(), bytes.size());
  channel_control& c = channel_->control();
  c.kind = request_kind::gather;
  c.outgoing_bytes = bytes.size();
  channel_->call();
  std::vector<std::span<const std::byte>> all;
  if (rank_ == 0)
    for (int q = 0; q < ranks_; ++q)
      all.push_back({channel_->incoming() + c.received[q].offset, static_cast<std::size_t>(c.received[q].bytes)});
  return all;
}

bool cluster_process::begin_region(const void* site, void* microtask, std::vector<void*> args, std::uintptr_t fork_sp,
                                   bool shareable, const std::vector<int>& threads) {
  runtime_scope scope;
  flush_standard_streams();  // serial code's output before the region's (standard_streams.cpp)
  region_state& r = region_;
  r.active = true;
  ++r.number;
  r.replayed = false;
  r.unchecked = false;
  r.site = site;
  r.microtask = microtask;
  r.args = std::move(args);
  r.fork_sp = fork_sp;
  r.flags.store(0);
  r.replay.store(false);
  r.abort_here.store(false);
  r.why.clear();
  r.written_before = bytes_written();
  {
    std::lock_guard hold(r.fresh_lock);
    r.fresh_files.clear();
  }
  r.synchronized_ns = 0;
  r.copies_before = open_private_copies();
  // A region started deeper down the stack than any before: track the
  // frames between too (the encountering function's locals are shared).
  if (fork_sp < stack_.begin + page_bytes) {
    const address_range more{page_floor(fork_sp) - 16 * page_bytes, stack_.begin};
    if (tracker_.add_range(more)) stack_.begin = more.begin;
  }
  tracker_.set_stack(stack_, fork_sp);
  // Static loops split by the ranks' powers (equal powers: libomp's split).
  std::vector<double> weights(threads.size());
  for (std::size_t q = 0; q < threads.size(); ++q) weights[q] = power_per_thread_[q] * std::max(threads[q], 1);
  r.team.emplace(threads, std::move(weights));
  r.local_threads = threads[static_cast<std::size_t>(rank_)];
  arena_bound_ = std::max(arena_bound_, r.team->size());
  if (const auto it = sites_.find(site); it != sites_.end() && it->second.replicated_unchecked()) {
    r.unchecked = true;
    ++it->second.unchecked_runs;
    r.started_ns = omp::bridge::now_ns();
    r.shared = false;
    return false;
  }
  std::vector<std::uintptr_t> written;
  track_modules_loaded_since(written);
  tracker_.begin_window(tracked_ranges(), !reconciled_once_, written);
  reconcile(written);
  reconciled_once_ = true;
  // The region's own time starts here: what serial code left to compare is
  // paid the same however the region runs.
  r.started_ns = omp::bridge::now_ns();
  r.shared = shareable && !unmerged_mappings_ && runs_shared(site);
  if (!r.shared && sites_[site].replicated_unchecked()) {  // an earlier run of the program found it alike
    r.unchecked = true;
    ++sites_[site].unchecked_runs;
  }
  if (r.shared) {
    open_shared_window();
    relay_.begin_region();
  }
  return r.shared;
}

// Serial code runs on every rank, but not always byte for byte alike:
// uninitialized stack left by other paths through the C library (rank 0
// writes to a terminal, the others to /dev/null), a clock read, a process
// id. Merges send only the bytes a rank changed, so every rank must start a
// window with the same memory: the pages serial code wrote are compared by
// hash, and where a rank's differ, rank 0's are taken (its output is the
// job's). The first region compares every tracked page.
void cluster_process::reconcile(const std::vector<std::uintptr_t>& written) {
  runtime_scope scope;
  // Ahead of the list, what the last region's end cost here, and what auto's
  // cache says of the region beginning (the first time this run meets it;
  // rank 0's cache is every rank's).
  // And whether this rank's program has memory mapped that is not merged.
  const std::string unmerged = unmerged_program_mapping();
  struct ahead {
    std::uint64_t end_ns;
    std::uint64_t remembered;
    std::uint64_t site;
    std::uint64_t unmerged_mapping;
    std::uint64_t modules;  // where the program's libraries are (some loaded since the first region)
  } mine{finished_ ? finished_->end_ns : 0,
         sites_.count(region_.site) != 0 ? 0 : static_cast<std::uint64_t>(omp::bridge::remembered_region(region_.site)),
         reinterpret_cast<std::uintptr_t>(region_.site), unmerged.empty() ? 0u : 1u, layout().modules};
  std::memcpy(channel_->outgoing(), &mine, sizeof mine);
  std::memcpy(channel_->outgoing() + sizeof mine, written.data(), written.size() * sizeof(std::uintptr_t));
  auto lists = exchange(sizeof mine + written.size() * sizeof(std::uintptr_t));
  unmerged_mappings_ = false;
  int unmerged_rank = -1;
  std::vector<std::uintptr_t> pages;
  for (std::size_t q = 0; q < lists.size(); ++q) {
    const auto* a = reinterpret_cast<const std::uintptr_t*>(lists[q].data() + sizeof mine);
    pages.insert(pages.end(), a, a + (lists[q].size() - sizeof mine) / sizeof(std::uintptr_t));
    ahead theirs{};
    std::memcpy(&theirs, lists[q].data(), sizeof theirs);
    // The program's address space is the same on every rank: another site
    // means that the ranks' serial code took different paths.
    if (theirs.site != mine.site)
      stop_everywhere("selfsched-mpirun --cluster: rank " + std::to_string(q) + " began the parallel region at " +
                      describe_site(reinterpret_cast<const void*>(theirs.site)) + " where rank " +
                      std::to_string(rank_) + " began the one at " + describe_site(region_.site) +
                      ": the ranks' serial code took different paths (it read something that differs between "
                      "ranks: a clock, a process id, a result summed in another order)");
    if (theirs.modules != mine.modules)
      stop_everywhere("selfsched-mpirun --cluster: a library the program loaded (dlopen) sits at other addresses on "
                      "rank " + std::to_string(q) + " than on rank " + std::to_string(rank_) +
                      ": its data cannot be merged");
    if (theirs.unmerged_mapping != 0 && !unmerged_mappings_) {
      unmerged_mappings_ = true;
      unmerged_rank = static_cast<int>(q);
    }
    if (finished_ && q < finished_->rank_times.size()) finished_->rank_times[q].second += theirs.end_ns;
    if (q == 0 && sites_.count(region_.site) == 0) {  // what an earlier run found
      using choice = omp::bridge::region_choice;
      const auto remembered = static_cast<choice>(theirs.remembered);
      site_record& record = sites_[region_.site];
      record.replicated = remembered == choice::replicated || remembered == choice::replicated_alike;
      if (remembered == choice::replicated_alike) record.alike_runs = alike_runs_to_trust;
    }
  }
  if (unmerged_mappings_ && !said_unmerged_ && rank_ == 0)
    say("selfsched-mpirun --cluster: the program has memory mapped that cluster mode does not merge (" +
        (unmerged_rank == 0 ? unmerged : "on rank " + std::to_string(unmerged_rank)) +
        "); parallel regions run replicated on every rank while it is mapped");
  said_unmerged_ = said_unmerged_ || unmerged_mappings_;
  if (finished_) choose_next_run(*finished_);
  finished_.reset();
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
  take_rank_zeros_pages_where_they_differ(pages);
}

// Pages serial code wrote on some rank: hashed everywhere, and where any
// rank's differs from rank 0's, rank 0's bytes go to every rank.
void cluster_process::take_rank_zeros_pages_where_they_differ(const std::vector<std::uintptr_t>& pages) {
  if (pages.empty()) return;
  auto* hashes = reinterpret_cast<std::uint64_t*>(channel_->outgoing());
  for (std::size_t i = 0; i < pages.size(); ++i) hashes[i] = tracker_.hash_page(pages[i]);
  const auto all = exchange(pages.size() * sizeof(std::uint64_t));
  std::vector<std::size_t> differ;
  const auto* zero = reinterpret_cast<const std::uint64_t*>(all[0].data());
  for (std::size_t i = 0; i < pages.size(); ++i)
    for (int q = 1; q < ranks_; ++q)
      if (reinterpret_cast<const std::uint64_t*>(all[static_cast<std::size_t>(q)].data())[i] != zero[i]) {
        differ.push_back(i);
        break;
      }
  if (differ.empty()) return;
  std::size_t bytes = 0;
  if (rank_ == 0)
    for (std::size_t i : differ) {
      const std::size_t n = tracker_.tracked_bytes(pages[i]);
      std::memcpy(channel_->outgoing() + bytes, reinterpret_cast<const std::byte*>(pages[i] + (page_bytes - n)), n);
      bytes += n;
    }
  const auto contents = exchange(bytes);
  if (rank_ == 0) return;
  const std::byte* from = contents[0].data();
  for (std::size_t i : differ) {
    tracker_.install_page(pages[i], from);
    from += tracker_.tracked_bytes(pages[i]);
  }
}

void cluster_process::end_region() {
  runtime_scope scope;
  region_state& r = region_;
  if (r.rank_times.size() == static_cast<std::size_t>(ranks_) && r.team) {
    finished_region f;
    f.site = r.site;
    f.shared = r.shared;
    f.replayed = r.replayed;
    for (int q = 0; q < ranks_; ++q) f.threads.push_back(r.team->threads(q));
    f.rank_times = r.rank_times;
    f.end_ns = static_cast<std::uint64_t>(r.synchronized_ns) - r.rank_times[static_cast<std::size_t>(rank_)].second;
    finished_ = std::move(f);
  }
  r.rank_times.clear();
  close_shared_window();
  relay_.end_region();
  tracker_.end_region();
  region_.active = false;
  region_.args.clear();
}

bool cluster_process::remember_replicated(const void* site) {
  runtime_scope scope;
  site_record& record = sites_[site];
  if (record.unshareable) return false;
  record.unshareable = record.replicated = true;
  record.why = region_.why;
  omp::bridge::remember_region(site, omp::bridge::region_choice::replicated);
  return true;
}

bool cluster_process::runs_shared(const void* site) const {
  const auto it = sites_.find(site);
  return it == sites_.end() || !it->second.replicated;
}

// Shared, a region costs its share of the work plus its merges; replicated,
// every rank does the whole work (team size / its threads times its share)
// and sends nothing. A memory-bound loop (a first touch, a copy) moves as
// many bytes as it computes: it runs replicated from its next run on. The
// same numbers on every rank (the last exchange carried them), so the same
// choice. A replicated run slower than shared was keeps the region shared.
void cluster_process::choose_next_run(const finished_region& f) {
  site_record& record = sites_[f.site];
  ++(f.shared ? record.shared_runs : record.replicated_runs);
  int team = 0;
  for (int t : f.threads) team += t;
  double whole = 0, replicated_estimate = 0;
  for (int q = 0; q < ranks_; ++q) {
    const auto [computed, synchronized] = f.rank_times[static_cast<std::size_t>(q)];
    whole = std::max(whole, 1e-9 * static_cast<double>(computed + synchronized));
    const int threads = std::max(1, f.threads[static_cast<std::size_t>(q)]);
    replicated_estimate = std::max(replicated_estimate, 1e-9 * static_cast<double>(computed) * team / threads);
  }
  if (record.unshareable) return;
  const bool verbose = rank_ == 0 && omp::bridge::settings().verbose;
  char line[300];
  if (f.shared && !f.replayed) {
    record.shared_s = whole;
    if (!record.settled && replicated_estimate < 0.9 * whole) {
      record.replicated = true;
      omp::bridge::remember_region(f.site, omp::bridge::region_choice::replicated);
      std::snprintf(line, sizeof line,
                    "selfsched-mpirun --cluster: the parallel region at %s runs replicated from now on: shared it "
                    "took %.6f s, whole on every rank it would take about %.6f s",
                    describe_site(f.site).c_str(), whole, replicated_estimate);
      if (verbose) say(line);
    }
  } else if (!f.shared && record.replicated) {
    record.replicated_s = whole;
    if (record.shared_s > 0 && whole > 1.1 * record.shared_s) {
      record.replicated = false, record.settled = true;
      omp::bridge::remember_region(f.site, omp::bridge::region_choice::shared);
      std::snprintf(line, sizeof line,
                    "selfsched-mpirun --cluster: the parallel region at %s runs shared again: replicated it took "
                    "%.6f s, shared %.6f s", describe_site(f.site).c_str(), whole, record.shared_s);
      if (verbose) say(line);
    }
  }
}

namespace {

std::string describe_flags(std::uint32_t flags) {
  if (flags & flag_wrote_private)
    return "wrote to a file serial code opened: only rank 0 writes files, so a parallel region that writes them runs on "
           "every rank";
  if (flags & flag_critical) return "entered a critical section or took an OpenMP lock (its updates were made to its own copy)";
  if (flags & flag_reduction_pointers)
    return "reduced variables whose private copies hold pointers (a Fortran array's descriptor, a C++ container), "
           "which cannot move between ranks";
  if (flags & flag_wrote_output)
    return "wrote to a file or pipe other than standard output and error, which only rank 0 writes";
  return "ran a construct that cannot be shared across ranks";
}

}  // namespace

void cluster_process::stop_unless_laid_out_alike(const std::vector<std::span<const std::byte>>& blobs) {
  // Every rank reads the same headers, so every rank takes the same branch
  // here, and the exchange below is met by all of them.
  bool alike = true;
  std::uint64_t first = 0;
  for (int q = 0; q < ranks_; ++q) {
    diff_reader reader(blobs[static_cast<std::size_t>(q)].data(), blobs[static_cast<std::size_t>(q)].size());
    if (!reader.valid()) stop_everywhere("selfsched-mpirun --cluster: rank " + std::to_string(q) + " sent a damaged merge");
    if (q == 0) first = reader.header().layout;
    alike = alike && reader.header().layout == first;
  }
  if (alike) return;
  // The hashes only say that something differs: the whole layouts say what.
  const memory_layout mine = layout();
  std::memcpy(channel_->outgoing(), &mine, sizeof mine);
  const auto all = exchange(sizeof mine);
  std::string part = "the layouts' hashes differ, the layouts do not";
  int other = 0;
  for (int q = 0; q < ranks_; ++q) {
    memory_layout theirs;
    std::memcpy(&theirs, all[static_cast<std::size_t>(q)].data(), sizeof theirs);
    if (std::string d = mine.difference(theirs, rank_, q); !d.empty()) {
      part = std::move(d);
      other = q;
      break;
    }
  }
  stop_everywhere("selfsched-mpirun --cluster: the program's memory is no longer laid out alike on rank " +
                  std::to_string(rank_) + " and rank " + std::to_string(other) + " (" + part +
                  "): its writes cannot be merged");
}

// Every rank's window, as its diffs say: each rank's times go to the
// region; true (and region().why) when a rank did what cannot be shared or
// two ranks changed one byte.
bool cluster_process::window_conflicts(const std::vector<std::span<const std::byte>>& blobs) {
  region_state& r = region_;
  r.rank_times.resize(static_cast<std::size_t>(ranks_));
  for (int q = 0; q < ranks_; ++q) {
    diff_reader reader(blobs[static_cast<std::size_t>(q)].data(), blobs[static_cast<std::size_t>(q)].size());
    r.rank_times[static_cast<std::size_t>(q)] = {reader.header().computed_ns, reader.header().synchronized_ns};
    // Output caught (output_relay.hpp) goes out after the merge; rank 0
    // writes files (and the job's output, once relayed) for the job.
    const std::uint32_t fine = flag_relayed_output | (q == 0 ? flag_wrote_output : 0u);
    if ((reader.header().flags & ~fine) != 0) {
      r.why = "rank " + std::to_string(q) + " " + describe_flags(reader.header().flags & ~fine);
      return true;
    }
  }
  if (const conflict c = find_conflict(blobs); c.found) {
    char where[160];
    std::snprintf(where, sizeof where, "ranks %d and %d both changed the byte at %#" PRIxPTR, c.first_rank,
                  c.second_rank, c.address);
    r.why = where;
    return true;
  }
  return false;
}

bool cluster_process::merge_shared(bool region_end) {
  runtime_scope scope;
  region_state& r = region_;
  close_shared_window();  // before the diffs are read: no early write may come between
  const std::int64_t began = omp::bridge::now_ns();
  struct account {
    region_state& r;
    std::int64_t began;
    double& merge_s;
    ~account() {
      const std::int64_t took = omp::bridge::now_ns() - began;
      r.synchronized_ns += took;
      merge_s += 1e-9 * static_cast<double>(took);
    }
  } accounted{r, began, sites_[r.site].merge_s};
  const std::vector<address_range> ranges = tracked_ranges();
  diff_writer w(channel_->outgoing(), channel_layout::outgoing_bytes);
  diff_header h;
  h.rank = static_cast<std::uint32_t>(rank_);
  h.flags = r.flags.exchange(0) | (wrote_output() ? flag_wrote_output : 0) |
            (relay_.pending() > 0 ? flag_relayed_output : 0);
  h.computed_ns = static_cast<std::uint64_t>(began - r.started_ns - r.synchronized_ns);
  h.synchronized_ns = static_cast<std::uint64_t>(r.synchronized_ns);
  if (std::vector<private_view::open_copy> now = open_private_copies(); now != r.copies_before) {
    h.flags |= flag_wrote_private;
    r.copies_before = std::move(now);
  }
  h.layout = layout().hash();
  w.begin(h);
  if (!tracker_.write_diffs(ranges, w))
    stop("selfsched-mpirun --cluster: rank " + std::to_string(rank_) +
         " changed more memory between two synchronization points than one merge can carry (16 GiB)");
  const std::size_t sent = w.finish();
  {
    site_record& record = sites_[r.site];
    ++record.merges;
    record.bytes_sent += sent;
    diff_reader mine(channel_->outgoing(), sent);
    record.pages_sent += mine.header().pages;
  }
  // This exchange carries the window's diffs: the agent may send them to a
  // rank that has not come yet (early_writes.cpp).
  channel_->control().merge_window = 1;
  const auto blobs = exchange(sent);
  channel_->control().merge_window = 0;
  stop_unless_laid_out_alike(blobs);
  if (window_conflicts(blobs)) {
    tracker_.roll_back_window();
    return false;
  }
  const bool relayed = std::any_of(blobs.begin(), blobs.end(), [](const auto& blob) {
    return (diff_reader(blob.data(), blob.size()).header().flags & flag_relayed_output) != 0;
  });
  for (int q = 0; q < ranks_; ++q) {
    if (q == rank_) continue;
    diff_reader reader(blobs[static_cast<std::size_t>(q)].data(), blobs[static_cast<std::size_t>(q)].size());
    tracker_.apply(reader);
  }
  if (relayed) relay_output();  // after the diffs are read: it reuses the channel's areas
  heap_->settle_deferred(arena_bound_);
  // After the others' runs (an arena may have grown); at the region's end
  // nothing will be rolled back to its start.
  tracker_.finish_merge(tracked_ranges(), !region_end);
  if (!region_end) open_shared_window();
  return true;
}

void cluster_process::adopt_rank_zero() {
  region_state& r = region_;
  if (r.unchecked) return;
  runtime_scope scope;
  const std::int64_t began = omp::bridge::now_ns();
  const std::vector<address_range> ranges = tracked_ranges();
  // First every rank says what its region wrote (a hash of the pages) and
  // what it cost; rank 0's diffs travel only when some rank's writes differ
  // (a region that is not deterministic: a floating-point reduction summed
  // in another order, a thread number stored).
  struct summary {
    std::uint64_t writes, computed_ns, synchronized_ns;
  } mine{tracker_.hash_written(ranges), static_cast<std::uint64_t>(began - r.started_ns - r.synchronized_ns),
         static_cast<std::uint64_t>(r.synchronized_ns)};
  std::memcpy(channel_->outgoing(), &mine, sizeof mine);
  bool alike = true;
  std::uint64_t zero_writes = 0;
  r.rank_times.clear();
  const auto all = exchange(sizeof mine);
  for (int q = 0; q < ranks_; ++q) {
    summary s{};
    std::memcpy(&s, all[static_cast<std::size_t>(q)].data(), sizeof s);
    if (q == 0) zero_writes = s.writes;
    alike = alike && s.writes == zero_writes;
    r.rank_times.push_back({s.computed_ns, s.synchronized_ns});
  }
  site_record& record = sites_[r.site];
  record.alike_runs = alike ? record.alike_runs + 1 : 0;
  if (!alike && !record.differed) omp::bridge::remember_region(r.site, omp::bridge::region_choice::replicated);
  record.differed = record.differed || !alike;
  // The next run of the program trusts it from its first run: a loop that
  // runs once (an initialization) is compared once, in the run that learns.
  if (alike && !record.differed && record.alike_runs == 1)
    omp::bridge::remember_region(r.site, omp::bridge::region_choice::replicated_alike);
  if (!alike) {
    std::size_t size = 0;
    if (rank_ == 0) {
      diff_writer w(channel_->outgoing(), channel_layout::outgoing_bytes);
      diff_header h;
      h.layout = layout().hash();
      w.begin(h);
      if (!tracker_.write_diffs(ranges, w))
        stop("selfsched-mpirun --cluster: rank 0 changed more memory in a replicated region than one merge can "
             "carry (16 GiB)");
      size = w.finish();
    }
    const auto zero = exchange(size)[0];
    if (rank_ != 0 && mine.writes != zero_writes) {
      tracker_.roll_back_window();
      diff_reader reader(zero.data(), zero.size());
      tracker_.apply(reader);
    }
  }
  tracker_.finish_merge(tracked_ranges(), false);  // a replicated region never runs again: no undo
  r.synchronized_ns += omp::bridge::now_ns() - began;
}

void cluster_process::note_fresh_file(const std::string& path, int fd) {
  struct stat st{};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  runtime_scope scope;
  std::lock_guard hold(region_.fresh_lock);
  region_.fresh_files.push_back({path, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)});
}

bool cluster_process::wrote_output() {
  const std::uint64_t caught = relay_.caught_in_region();  // read first: a write after it counts
  // Bytes in the region's fresh files: what their sizes say now (a file
  // written sequentially holds what was written; one written over again, in
  // place, counts its size once and the rest as output). A file renamed or
  // removed since counts nothing.
  std::uint64_t fresh = 0;
  {
    own_work_scope scope;
    std::lock_guard hold(region_.fresh_lock);
    for (const region_state::fresh_file& f : region_.fresh_files) {
      struct stat st{};
      if (stat(f.path.c_str(), &st) == 0 && static_cast<std::uint64_t>(st.st_dev) == f.device &&
          static_cast<std::uint64_t>(st.st_ino) == f.inode)
        fresh += static_cast<std::uint64_t>(st.st_size);
    }
  }
  return bytes_written() > region_.written_before + caught + fresh;
}

void cluster_process::relay_output() {
  const std::vector<std::byte> mine = relay_.take();
  const auto all = gather_to_rank_zero(rank_ == 0 ? std::span<const std::byte>{} : std::span<const std::byte>(mine));
  if (rank_ != 0) return;
  relay_.write_out(mine);
  for (std::size_t q = 1; q < all.size(); ++q) relay_.write_out(all[q]);
}

void cluster_process::roll_back_region() {
  runtime_scope scope;
  // Every rank says whether its region's output went out already: what
  // rank 0 wrote for it at an earlier merge, or what it wrote elsewhere.
  // What it caught since the last merge was not written: it goes.
  const std::uint32_t mine = wrote_output() || relay_.relayed() > 0 ? 1 : 0;
  relay_.drop();
  relay_.end_region();
  std::memcpy(channel_->outgoing(), &mine, sizeof mine);
  for (const auto& answer : exchange(sizeof mine)) {
    std::uint32_t wrote = 0;
    std::memcpy(&wrote, answer.data(), sizeof wrote);
    if (wrote) {
      // Its next run will not be shared, if auto's cache can keep it.
      remember_replicated(region_.site);
      const bool kept = omp::bridge::keep_learned_now();
      stop_everywhere("selfsched-mpirun --cluster: the parallel region at " + describe_site(region_.site) +
                      " cannot be shared (" + region_.why +
                      "), and it wrote output before that was found, which running it again would write twice; "
                      "stopping the job" +
                      (kept ? std::string("; run it again: auto's cache keeps it replicated from its start")
                            : std::string("; with auto's cache on (SELFSCHED_AUTO_CACHE), a second run keeps it "
                                          "replicated from its start")));
    }
  }
  tracker_.discard_window(tracked_ranges());
  tracker_.roll_back_region();
}

void cluster_process::ask_agent(request_kind kind, std::initializer_list<std::int64_t> args, std::int64_t* results,
                                const char* text) {
  std::lock_guard hold(link_lock_);
  channel_control& c = channel_->control();
  c.kind = kind;
  std::size_t i = 0;
  for (std::int64_t a : args) c.args[i++] = a;
  if (text != nullptr) std::snprintf(c.text, sizeof c.text, "%s", text);
  channel_->call();
  if (results != nullptr) std::memcpy(results, c.results, sizeof c.results);
}

std::string cluster_process::profile_section() const {
  runtime_scope scope;
  nlohmann::json regions = nlohmann::json::array();
  for (const auto& [site, record] : sites_) {
    nlohmann::json region{{"region", describe_site(site)},
                          {"runs_shared", record.shared_runs},
                          {"runs_replicated", record.replicated_runs + record.unchecked_runs},
                          {"runs_replicated_unchecked", record.unchecked_runs},
                          {"next_run", record.replicated ? "replicated" : "shared"},
                          {"merges", record.merges},
                          {"pages_sent", record.pages_sent},
                          {"bytes_sent", record.bytes_sent},
                          {"merge_s", record.merge_s}};
    if (record.shared_s > 0) region["last_shared_s"] = record.shared_s;
    if (record.replicated_s > 0) region["last_replicated_s"] = record.replicated_s;
    if (!record.why.empty()) region["unshareable_because"] = record.why;
    regions.push_back(std::move(region));
  }
  return nlohmann::json{{"rank", rank_},
                        {"ranks", ranks_},
                        {"write_tracking", tracker_.write_protected() ? "kernel" : "compare every page"},
                        {"hot_page_windows", tracker_.protect_after()},
                        {"regions", std::move(regions)}}
      .dump();
}

void cluster_process::say(const std::string& message) {
  runtime_scope scope;
  const std::string line = message + "\n";
  (void)!write(error_fd_, line.data(), line.size());
}

void cluster_process::stop_everywhere(const std::string& message) {
  if (rank_ == 0) stop(message);
  for (;;) pause();  // rank 0's agent ends the job
}

void cluster_process::stop(const std::string& message) {
  runtime_scope scope;
  channel_control& c = channel_->control();
  std::snprintf(c.text, sizeof c.text, "%s", message.c_str());
  c.kind = request_kind::fatal;
  channel_->call();
  _exit(70);  // the agent ends the job; not reached
}

}  // namespace selfsched::cluster

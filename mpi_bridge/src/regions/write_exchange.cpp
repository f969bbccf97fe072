#include "regions/write_exchange.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "common/fatal.hpp"
#include "common/site_identity.hpp"

namespace selfsched::mpi::detail {
namespace {

// A run as sent: where, how long, a hash of its bytes; the bytes follow
// (8-byte aligned) when merging.
struct run_header {
  std::uint32_t range;
  std::uint32_t length;
  std::uint64_t offset;
  std::uint64_t hash;
};

std::size_t round8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

std::vector<std::byte> pack(const changed_bytes& mine, bool merge) {
  std::vector<std::byte> out;
  for (const changed_run& r : mine.runs) {
    const std::byte* bytes = mine.data.data() + r.at;
    const run_header h{r.range, r.length, r.offset, fnv(0xcbf29ce484222325ULL, bytes, r.length)};
    const std::size_t at = out.size();
    out.resize(at + sizeof h + (merge ? round8(r.length) : 0));
    std::memcpy(out.data() + at, &h, sizeof h);
    if (merge) std::memcpy(out.data() + at + sizeof h, bytes, r.length);
  }
  return out;
}

// Another rank's run (or this rank's), pointing into the gathered bytes.
struct rank_run {
  int rank;
  run_header h;
  const std::byte* data;  // nullptr when only hashes were sent
  std::uint64_t end() const { return h.offset + h.length; }
};

std::vector<std::byte> gather_all(MPI_Comm comm, const std::vector<std::byte>& mine, std::vector<int>& counts) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  if (mine.size() > INT_MAX)
    abort_job(comm, "a rank changed more than 2 GB of undeclared bytes in one shared loop; declare its results "
                    "(gather_rows, reduce) instead of merging them");
  const int count = static_cast<int>(mine.size());
  counts.assign(static_cast<std::size_t>(size), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  std::vector<int> displacements(static_cast<std::size_t>(size));
  long long total = 0;
  for (int r = 0; r < size; ++r) displacements[r] = static_cast<int>(total), total += counts[r];
  if (total > INT_MAX)
    abort_job(comm, "the ranks changed more than 2 GB of undeclared bytes in one shared loop; declare its results "
                    "(gather_rows, reduce) instead of merging them");
  std::vector<std::byte> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), displacements.data(), MPI_BYTE, comm);
  return all;
}

std::vector<rank_run> unpack(const std::vector<std::byte>& all, const std::vector<int>& counts, bool merge) {
  std::vector<rank_run> runs;
  std::size_t at = 0;
  for (int r = 0; r < static_cast<int>(counts.size()); ++r)
    for (const std::size_t end = at + static_cast<std::size_t>(counts[r]); at < end;) {
      rank_run run{r, {}, nullptr};
      std::memcpy(&run.h, all.data() + at, sizeof run.h);
      at += sizeof run.h;
      if (merge) run.data = all.data() + at, at += round8(run.h.length);
      runs.push_back(run);
    }
  return runs;
}

std::string hex(std::uintptr_t a) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(a));
  return text;
}

// Runs not written alike by every rank, summarized per range for one
// message (rank 0's addresses).
std::string describe_undeclared(const write_window& window, const std::vector<rank_run>& runs, int size,
                                std::uint64_t& bytes) {
  std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t, std::uint64_t>, int> writers;
  for (const rank_run& r : runs) ++writers[{r.h.range, r.h.offset, r.h.length, r.h.hash}];
  struct summary {
    std::uint64_t lowest = UINT64_MAX, highest = 0, bytes = 0;
    std::vector<bool> ranks;
  };
  std::map<std::uint32_t, summary> per_range;
  for (const rank_run& r : runs) {
    if (writers[{r.h.range, r.h.offset, r.h.length, r.h.hash}] == size) continue;
    summary& s = per_range[r.h.range];
    s.ranks.resize(static_cast<std::size_t>(size));
    s.lowest = std::min(s.lowest, r.h.offset);
    s.highest = std::max(s.highest, r.end());
    s.bytes += r.h.length;
    s.ranks[static_cast<std::size_t>(r.rank)] = true;
    bytes += r.h.length;
  }
  std::string text;
  for (const auto& [index, s] : per_range) {
    const watched_range& range = window.ranges()[index];
    text += text.empty() ? "" : "; ";
    text += std::to_string(s.bytes) + " bytes in " + range.name + " within [" + hex(range.begin + s.lowest) + ", " +
            hex(range.begin + s.highest) + ") (offsets " + std::to_string(s.lowest) + " to " +
            std::to_string(s.highest) + "), written by rank";
    const char* separator = " ";
    int writers_count = 0;
    for (int r = 0; r < size; ++r)
      if (s.ranks[static_cast<std::size_t>(r)]) text += separator + std::to_string(r), separator = ",", ++writers_count;
    if (writers_count > 1) text.insert(text.rfind("rank") + 4, "s");
  }
  return text;
}

// Two ranks' runs over the same bytes with different values: stops the job.
void stop_at_conflict(MPI_Comm comm, const write_window& window, std::vector<rank_run>& runs, const std::string& site) {
  std::sort(runs.begin(), runs.end(), [](const rank_run& a, const rank_run& b) {
    return std::tie(a.h.range, a.h.offset, a.rank) < std::tie(b.h.range, b.h.offset, b.rank);
  });
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = i + 1; j < runs.size() && runs[j].h.range == runs[i].h.range && runs[j].h.offset < runs[i].end(); ++j) {
      const rank_run &a = runs[i], &b = runs[j];
      if (a.rank == b.rank) continue;
      const std::uint64_t from = b.h.offset, to = std::min(a.end(), b.end());
      std::uint64_t first = to, last = from;
      for (std::uint64_t o = from; o < to; ++o)
        if (a.data[o - a.h.offset] != b.data[o - b.h.offset]) first = std::min(first, o), last = o + 1;
      if (first >= last) continue;
      int rank = 0;
      MPI_Comm_rank(comm, &rank);
      if (rank != 0) {  // rank 0 explains and stops the job
        MPI_Barrier(comm);
        std::abort();
      }
      const watched_range& range = window.ranges()[a.h.range];
      char values[96];
      std::snprintf(values, sizeof values, "0x%02x on rank %d, 0x%02x on rank %d",
                    static_cast<unsigned>(a.data[first - a.h.offset]), a.rank,
                    static_cast<unsigned>(b.data[first - b.h.offset]), b.rank);
      abort_job(comm, "merge_writes: conflict in the shared loop" + site + ": ranks " + std::to_string(a.rank) +
                          " and " + std::to_string(b.rank) + " wrote bytes [" + hex(range.begin + first) + ", " +
                          hex(range.begin + last) + ") of " + range.name + " (offsets " + std::to_string(first) +
                          " to " + std::to_string(last) + ") with different values (first byte: " + values +
                          "); a conflict is never merged");
    }
}

}  // namespace

exchange_outcome exchange_writes(MPI_Comm comm, const write_window& window, const changed_bytes& mine, bool merge,
                                 const std::string& site) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> counts;
  const std::vector<std::byte> all = gather_all(comm, pack(mine, merge), counts);
  std::vector<rank_run> runs = unpack(all, counts, merge);
  exchange_outcome out;
  const std::string text = describe_undeclared(window, runs, size, out.undeclared_bytes);
  if (!merge) {
    if (out.undeclared_bytes > 0)
      out.message = "the shared loop" + site + ", wrote " + text +
                    "; no declared movement covers them, so they stay on the rank that wrote them. Declare them "
                    "(options::gather_rows, options::reduce) or merge them (options::merge_writes, "
                    "SELFSCHED_MPI_WRITES=merge)";
    return out;
  }
  stop_at_conflict(comm, window, runs, site);
  for (const rank_run& r : runs) {
    if (r.rank == rank) continue;
    std::memcpy(reinterpret_cast<void*>(window.ranges()[r.h.range].begin + r.h.offset), r.data, r.h.length);
    out.received_bytes += r.h.length;
  }
  return out;
}

}  // namespace selfsched::mpi::detail

// Property tests over the whole catalog: every technique, plain and under the
// mechanisms, on thousands of random loops. They iterate over catalog(), so a
// technique added to the registry is covered without being named here.
//
// The random cases come from one fixed seed (kSeed; SELFSCHED_TEST_SEED
// overrides it to explore). Every failure prints the seed, the case number
// and the whole case, enough to replay it with selfsched-chunks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "selfsched/core.hpp"

namespace selfsched {
namespace {

constexpr std::uint64_t kSeed = 0x5e1f5c4ed;
constexpr iter_t kMaxIter = std::numeric_limits<iter_t>::max();

std::uint64_t master_seed() {
  if (const char* s = std::getenv("SELFSCHED_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return kSeed;
}

// ---------------------------------------------------------------------------
// Schedules under test: every catalog technique, plain and with mechanisms.

std::vector<std::string> decorated_names(const technique_info& t) {
  const std::string name(t.name);
  return {name, "w-" + name, name + "-50", name + "-auto", "w-" + name + "-80", name + "-100", name + "-1"};
}

schedule_spec spec_of(const std::string& text) {
  const parse_result r = parse_schedule(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.error;
  return r.spec;
}

// All schedules; with `fixed_only`, those a chunk_plan may serve. A name the
// parser rejects is a failure (spec_of) and is left out.
std::vector<std::string> all_schedules(bool fixed_only) {
  std::vector<std::string> names;
  for (const auto& t : catalog())
    for (const auto& name : decorated_names(t))
      if (const schedule_spec spec = spec_of(name); spec.base != nullptr && (!fixed_only || is_fixed(spec)))
        names.push_back(name);
  return names;
}

// ---------------------------------------------------------------------------
// A random loop and a random way of asking for its chunks.

using rng_t = std::mt19937_64;

// From the top 53 bits (libstdc++'s uniform_real_distribution takes a logl per draw).
double uniform(rng_t& rng, double lo, double hi) { return lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1.0p-53; }
bool chance(rng_t& rng, double p) { return uniform(rng, 0, 1) < p; }
iter_t between(rng_t& rng, iter_t lo, iter_t hi) { return std::uniform_int_distribution<iter_t>(lo, hi)(rng); }
// Log-uniform in [lo, hi], lo >= 1.
iter_t log_between(rng_t& rng, iter_t lo, iter_t hi) {
  const double x = std::exp(uniform(rng, std::log(static_cast<double>(lo)), std::log(static_cast<double>(hi) + 1)));
  return std::clamp(static_cast<iter_t>(x), lo, hi);
}

enum class order_kind { round_robin, random_worker, fastest_first, shuffled_cycle };

struct loop_case {
  loop_params lp;
  std::vector<double> queue;  // Q_k per worker; empty: 1
  bool queue_drifts = false;  // Q_k changes between requests
  order_kind order = order_kind::round_robin;
  std::vector<double> seconds_per_iter;  // drives record()
  std::uint64_t stream_seed = 0;         // the request stream

  std::string describe() const {
    std::ostringstream os;
    os << "n=" << lp.n << " p=" << lp.p << " min_chunk=" << lp.min_chunk << " max_chunk=" << lp.max_chunk
       << " granule=" << lp.granule << " chunk=" << lp.chunk << " mu=" << lp.mu << " sigma=" << lp.sigma << " overhead=" << lp.overhead
       << " seed=" << lp.seed << " order=" << static_cast<int>(order) << " queue_drifts=" << queue_drifts;
    const auto list = [&](const char* what, const std::vector<double>& v) {
      if (v.empty()) return;
      os << ' ' << what << '=';
      for (std::size_t k = 0; k < v.size() && k < 8; ++k) os << (k ? "," : "") << v[k];
      if (v.size() > 8) os << ",...";
    };
    list("weights", lp.powers);
    list("queue", queue);
    return os.str();
  }
};

// `max_chunks_hint`: keep n / min_chunk below it so that enumerating every
// chunk stays cheap (every chunk but the last has at least min_chunk).
loop_case random_case(rng_t& rng, iter_t max_chunks_hint = 50'000) {
  loop_case c;
  loop_params& lp = c.lp;
  const double shape = uniform(rng, 0, 1);
  lp.n = shape < 0.25 ? between(rng, 0, 100) : shape < 0.75 ? log_between(rng, 1, 100'000) : log_between(rng, 100'000, 10'000'000);
  const double width = uniform(rng, 0, 1);
  lp.p = static_cast<int>(width < 0.4 ? between(rng, 1, 8) : width < 0.8 ? between(rng, 1, 64) : log_between(rng, 1, 4096));

  const iter_t min_needed = std::max<iter_t>(1, lp.n / max_chunks_hint);
  if (min_needed > 1 || chance(rng, 0.35))
    lp.min_chunk = chance(rng, 0.05) ? lp.n + between(rng, 1, 10) : log_between(rng, min_needed, std::max(min_needed, lp.n / std::max(1, lp.p / 2)));
  if (chance(rng, 0.2)) lp.max_chunk = log_between(rng, lp.min_chunk, std::max(lp.min_chunk, lp.n));
  if (chance(rng, 0.3)) lp.chunk = log_between(rng, std::max<iter_t>(1, lp.n / max_chunks_hint), std::max<iter_t>(1, lp.n));

  const double weights = uniform(rng, 0, 1);
  const auto fill = [&](auto draw) {
    lp.powers.resize(static_cast<std::size_t>(lp.p));
    for (double& w : lp.powers) w = draw();
  };
  if (weights < 0.3) {
    // no weights: all workers equal
  } else if (weights < 0.55) {
    fill([&] { return uniform(rng, 0.05, 1.0); });
  } else if (weights < 0.7) {
    fill([&] { return chance(rng, 0.5) ? 1.0 : 0.25; });
  } else if (weights < 0.8) {
    fill([&] { return std::exp(uniform(rng, std::log(1e-6), 0)); });  // extreme spread
  } else if (weights < 0.9) {
    fill([&] { return uniform(rng, 200, 1500); });  // clocks in MHz, not normalised
  } else {
    const double same = uniform(rng, 0.1, 10);
    fill([&] { return same; });
  }

  if (chance(rng, 0.5)) {
    c.queue.resize(static_cast<std::size_t>(lp.p));
    for (double& q : c.queue) q = static_cast<double>(between(rng, 1, 4));
    c.queue_drifts = chance(rng, 0.3);
  }
  c.order = static_cast<order_kind>(between(rng, 0, 3));

  if (chance(rng, 0.5)) lp.mu = std::exp(uniform(rng, std::log(1e-3), std::log(1e3)));
  if (chance(rng, 0.6)) lp.sigma = lp.mu * uniform(rng, 0, 3);
  if (chance(rng, 0.4)) lp.overhead = std::exp(uniform(rng, std::log(1e-3), std::log(1e2)));
  lp.seed = rng();

  // Workers run at their power: the fastest takes mu microseconds per iteration.
  c.seconds_per_iter.assign(static_cast<std::size_t>(lp.p), lp.mu * 1e-6);
  if (!lp.powers.empty()) {
    const double fastest = *std::max_element(lp.powers.begin(), lp.powers.end());
    for (std::size_t k = 0; k < c.seconds_per_iter.size(); ++k) c.seconds_per_iter[k] *= fastest / lp.powers[k];
  }
  c.stream_seed = rng();
  // From a generator of its own, so the cases of the fixed seed stay as they were.
  if (rng_t own(c.stream_seed ^ 0x6a09e667f3bcc908); chance(own, 0.15)) lp.granule = between(own, 2, 64);
  return c;
}

// ---------------------------------------------------------------------------
// Running a schedule to the end and checking every chunk on the way.

// Forwards to the technique under test and remembers the first negative size
// it asked for: a negative size is an overflow, even if the clamp hides it.
class size_watch final : public technique {
 public:
  explicit size_watch(technique_ptr inner) : inner_(std::move(inner)) {}
  iter_t next_size(const request& r) override {
    const iter_t size = inner_->next_size(r);
    if (size < 0 && first_negative_.empty())
      first_negative_ = "asked for " + std::to_string(size) + " at step " + std::to_string(r.step) +
                        " with R=" + std::to_string(r.remaining);
    return size;
  }
  void record(int worker, iter_t size, double seconds) override { inner_->record(worker, size, seconds); }
  iter_t constant_size_from(const request& r) const override { return inner_->constant_size_from(r); }
  const std::string& first_negative() const { return first_negative_; }

 private:
  technique_ptr inner_;
  std::string first_negative_;
};

// One chunk as the loop contract wants it: starts where the last ended, not
// empty, within the thresholds unless it is the final remainder.
std::string check_chunk(const chunk& c, iter_t expected_start, const loop_params& lp) {
  const iter_t remaining = lp.n - expected_start;
  std::string bad;
  if (c.start != expected_start) bad = "starts at " + std::to_string(c.start) + ", expected " + std::to_string(expected_start);
  else if (c.size <= 0) bad = "is empty with " + std::to_string(remaining) + " iterations left";
  else if (c.size > remaining) bad = "runs past n (" + std::to_string(remaining) + " left)";
  else if (c.size < lp.min_chunk && c.size != remaining) bad = "is below the minimum chunk and is not the remainder";
  else if (lp.granule > 1 && c.size % lp.granule != 0 && c.size != remaining)
    bad = "is not a whole number of granules and is not the remainder";
  // A granule outranks the maximum: a chunk rounds up to whole granules.
  else if (lp.max_chunk > 0 && c.size > std::max(lp.max_chunk, (lp.max_chunk + lp.granule - 1) / lp.granule * lp.granule))
    bad = "is above the maximum chunk";
  return bad.empty() ? bad : "chunk {" + std::to_string(c.start) + ", " + std::to_string(c.size) + "} " + bad;
}

struct run_result {
  std::string failure;        // empty: every check passed
  std::vector<chunk> chunks;  // the first `keep` chunks
  iter_t chunk_count = 0;
  bool finished = false;      // the loop was exhausted within the budget
};

// Asks for chunks as described by `c` (worker order, queues, record() of each
// worker's previous chunk before its next request) until the loop is
// exhausted or `budget` chunks were handed out.
run_result run_schedule(const schedule_spec& spec, const loop_case& c, iter_t budget, std::size_t keep) {
  run_result out;
  const loop_params& lp = c.lp;
  auto watched = std::make_unique<size_watch>(make_schedule(spec, lp));
  const size_watch& watch = *watched;
  scheduler s(std::move(watched), lp);

  rng_t rng(c.stream_seed);
  std::vector<int> cycle(static_cast<std::size_t>(lp.p));
  std::iota(cycle.begin(), cycle.end(), 0);
  if (c.order == order_kind::shuffled_cycle) std::shuffle(cycle.begin(), cycle.end(), rng);
  if (c.order == order_kind::fastest_first && !lp.powers.empty())
    std::stable_sort(cycle.begin(), cycle.end(), [&](int a, int b) { return lp.powers[a] > lp.powers[b]; });
  std::vector<double> queue = c.queue;
  std::vector<chunk> outstanding(static_cast<std::size_t>(lp.p));  // each worker's unrecorded chunk

  iter_t expected_start = 0;
  for (iter_t step = 0; step < budget; ++step) {
    const int worker = c.order == order_kind::random_worker
                           ? static_cast<int>(between(rng, 0, lp.p - 1))
                           : cycle[static_cast<std::size_t>(step % lp.p)];
    if (chunk& done = outstanding[static_cast<std::size_t>(worker)]; done.size > 0) {
      // Timers can read 0 for a short chunk: techniques must cope.
      const double seconds = chance(rng, 0.02) ? 0.0
                                               : static_cast<double>(done.size) * c.seconds_per_iter[worker] *
                                                     uniform(rng, 0.5, 1.5) * (queue.empty() ? 1.0 : queue[worker]);
      s.record(worker, done.size, seconds);
      done = {};
    }
    if (c.queue_drifts && !queue.empty()) queue[static_cast<std::size_t>(worker)] = static_cast<double>(between(rng, 1, 4));
    const chunk got = s.next(worker, queue.empty() ? 1.0 : queue[static_cast<std::size_t>(worker)]);
    if (!watch.first_negative().empty()) {
      out.failure = watch.first_negative();
      return out;
    }
    if (expected_start == lp.n) {
      if (got.size != 0 || got.start != lp.n)
        out.failure = "after the end, next() gave {" + std::to_string(got.start) + ", " + std::to_string(got.size) + "}";
      else if (s.remaining() != 0 || s.steps() != out.chunk_count)
        out.failure = "after the end, remaining()=" + std::to_string(s.remaining()) + " steps()=" + std::to_string(s.steps());
      out.finished = true;
      return out;
    }
    if (std::string bad = check_chunk(got, expected_start, lp); !bad.empty()) {
      out.failure = "step " + std::to_string(step) + " (worker " + std::to_string(worker) + "): " + bad;
      return out;
    }
    if (out.chunks.size() < keep) out.chunks.push_back(got);
    outstanding[static_cast<std::size_t>(worker)] = got;
    expected_start += got.size;
    ++out.chunk_count;
  }
  return out;
}

std::string trace(std::uint64_t seed, int index, const std::string& spec, const loop_case& c) {
  return "seed " + std::to_string(seed) + ", case " + std::to_string(index) + ": " + spec + " " + c.describe();
}

// ---------------------------------------------------------------------------
// chunk_plan checks.

// Compares a plan with the scheduler's chunks: in order with one hint, and
// in random order with another hint.
std::string compare_plan(const chunk_plan& plan, const std::vector<chunk>& chunks, rng_t& rng) {
  std::size_t hint = 0;
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const chunk c = plan.at(static_cast<iter_t>(k), hint);
    if (c.start != chunks[k].start || c.size != chunks[k].size)
      return "in order, plan.at(" + std::to_string(k) + ") = {" + std::to_string(c.start) + ", " + std::to_string(c.size) +
             "}, scheduler gave {" + std::to_string(chunks[k].start) + ", " + std::to_string(chunks[k].size) + "}";
  }
  hint = 0;
  for (std::size_t probe = 0; probe < std::min<std::size_t>(chunks.size(), 4096); ++probe) {
    const auto k = static_cast<std::size_t>(between(rng, 0, static_cast<iter_t>(chunks.size()) - 1));
    const chunk c = plan.at(static_cast<iter_t>(k), hint);
    if (c.start != chunks[k].start || c.size != chunks[k].size)
      return "in random order, plan.at(" + std::to_string(k) + ") = {" + std::to_string(c.start) + ", " +
             std::to_string(c.size) + "}, scheduler gave {" + std::to_string(chunks[k].start) + ", " +
             std::to_string(chunks[k].size) + "}";
  }
  return {};
}

// Checks that a plan tiles [0, n) without enumerating its chunks: from chunk
// k, gallop to the last chunk j of the same size that lies on the same line
// (chunks k..j form a run), check the run's sizes, then check that chunk j+1
// starts where chunk j ends. The cost is O(runs * log n) calls of at().
std::string walk_plan(const chunk_plan& plan, const loop_params& lp, std::size_t& runs) {
  const iter_t count = plan.chunk_count();
  runs = 0;
  iter_t k = 0, expected_start = 0;
  std::size_t hint = 0;
  while (k < count) {
    const chunk first = plan.at(k, hint);
    if (std::string bad = check_chunk(first, expected_start, lp); !bad.empty())
      return "plan step " + std::to_string(k) + ": " + bad;
    const auto in_run = [&](iter_t j) {
      const chunk c = plan.at(j);
      const iter_t offset = c.start - first.start;  // both in [0, n]
      return c.size == first.size && offset % first.size == 0 && offset / first.size == j - k;
    };
    iter_t last = k, stride = 1;
    while (stride < count - last && in_run(last + stride)) {
      last += stride;
      stride *= 2;
    }
    iter_t beyond = stride < count - last ? last + stride : count;  // not in the run (or the end)
    while (beyond - last > 1) {
      const iter_t mid = last + (beyond - last) / 2;
      (in_run(mid) ? last : beyond) = mid;
    }
    // Chunks k..last all have first.size: only the very last chunk of the
    // loop may be below the minimum.
    if (first.size < lp.min_chunk && last != k)
      return "plan steps " + std::to_string(k) + ".." + std::to_string(last) + " are below the minimum chunk";
    const chunk end = plan.at(last);
    expected_start = end.start + end.size;
    if (end.start + end.size > lp.n || (last == count - 1) != (expected_start == lp.n))
      return "plan step " + std::to_string(last) + " ends at " + std::to_string(expected_start) + " of " +
             std::to_string(lp.n) + " with " + std::to_string(count) + " chunks";
    ++runs;
    k = last + 1;
  }
  if (expected_start != lp.n) return "plan covers " + std::to_string(expected_start) + " of " + std::to_string(lp.n);
  const chunk past = plan.at(count);
  if (past.size != 0 || past.start != lp.n) return "plan.at(chunk_count) is not {n, 0}";
  return {};
}

// ---------------------------------------------------------------------------
// The tests.

loop_case plain_case(iter_t n, int p, iter_t min_chunk = 1) {
  loop_case c;
  c.lp.n = n;
  c.lp.p = p;
  c.lp.min_chunk = min_chunk;
  c.seconds_per_iter.assign(static_cast<std::size_t>(p), 1e-6);
  c.stream_seed = 7;
  return c;
}

// Every schedule, random loops, random request orders, random feedback:
// the chunks tile [0, n) exactly once within the thresholds.
TEST(CatalogProperty, EveryScheduleTilesRandomLoops) {
  const std::uint64_t seed = master_seed();
  rng_t rng(seed);
  int index = 0, cases = 0;
  for (const auto& name : all_schedules(false)) {
    const schedule_spec spec = spec_of(name);
    for (int i = 0; i < 40; ++i, ++index) {
      const loop_case c = random_case(rng);
      const run_result r = run_schedule(spec, c, kMaxIter, 0);
      ++cases;
      ASSERT_TRUE(r.failure.empty()) << trace(seed, index, name, c) << "\n  " << r.failure;
      ASSERT_TRUE(r.finished) << trace(seed, index, name, c);
    }
    // Plain techniques also get a large loop with the default minimum chunk,
    // enumerated chunk by chunk (ss: 10^7 chunks).
    if (name != spec.base->name) continue;
    loop_case big = random_case(rng);
    big.lp.n = 10'000'000;
    big.lp.min_chunk = 1;
    big.lp.max_chunk = 0;
    big.lp.chunk = 0;
    const run_result r = run_schedule(spec, big, kMaxIter, 0);
    ++index;
    ASSERT_TRUE(r.failure.empty()) << trace(seed, index, name, big) << "\n  " << r.failure;
  }
  RecordProperty("cases", cases);
}

// A fixed technique's chunks do not depend on who asks: the plan, built once,
// equals what the scheduler hands out to random workers with random powers
// and queues, read in order and in random order.
TEST(CatalogProperty, FixedPlansEqualTheScheduler) {
  const std::uint64_t seed = master_seed() + 1;
  rng_t rng(seed);
  int index = 0;
  for (const auto& name : all_schedules(true)) {
    const schedule_spec spec = spec_of(name);
    for (int i = 0; i < 40; ++i, ++index) {
      const loop_case c = random_case(rng);
      const run_result r = run_schedule(spec, c, kMaxIter, 1u << 20);
      ASSERT_TRUE(r.failure.empty()) << trace(seed, index, name, c) << "\n  " << r.failure;
      const technique_ptr t = make_schedule(spec, c.lp);
      const std::optional<chunk_plan> plan = chunk_plan::build(*t, c.lp);
      ASSERT_TRUE(plan.has_value()) << trace(seed, index, name, c) << "\n  no plan";
      ASSERT_EQ(plan->chunk_count(), r.chunk_count) << trace(seed, index, name, c);
      const std::string bad = compare_plan(*plan, r.chunks, rng);
      ASSERT_TRUE(bad.empty()) << trace(seed, index, name, c) << "\n  " << bad;
      const chunk past = plan->at(plan->chunk_count());
      ASSERT_EQ(past.size, 0) << trace(seed, index, name, c);
      ASSERT_EQ(past.start, c.lp.n) << trace(seed, index, name, c);
    }
  }
}

// Fixed techniques at 10^9 ... INT64_MAX iterations: the plan builds in few
// runs (O(p log n): gss needs about p ln(n/p^2) + p), tiles [0, n) (checked
// run by run), and equals the scheduler on every chunk when there are at
// most 2*10^6 chunks, on the first 20,000 otherwise.
std::string check_huge_plan(const schedule_spec& spec, const loop_case& c, rng_t& rng) {
  const loop_params& lp = c.lp;
  const technique_ptr t = make_schedule(spec, lp);
  const std::optional<chunk_plan> plan = chunk_plan::build(*t, lp);
  if (!plan) return "no plan within the default limits";
  // Compact: O(p log n) runs, plus the n / max_chunk chunks a maximum forces
  // (rnd draws each of them anew).
  const double log2n = std::log2(static_cast<double>(lp.n));
  const double forced = lp.max_chunk > 0 ? 2.0 * static_cast<double>(lp.n / lp.max_chunk) : 0.0;
  if (static_cast<double>(plan->segment_count()) > 8.0 * lp.p * (log2n + 1) + 16 + forced)
    return "the plan is not compact: " + std::to_string(plan->segment_count()) + " runs";
  std::size_t runs = 0;
  if (std::string bad = walk_plan(*plan, lp, runs); !bad.empty()) return bad;

  const bool whole = plan->chunk_count() <= 2'000'000;
  const run_result r = run_schedule(spec, c, whole ? kMaxIter : 20'000, 1u << 20);
  if (!r.failure.empty()) return r.failure;
  if (whole && r.chunk_count != plan->chunk_count())
    return "the plan has " + std::to_string(plan->chunk_count()) + " chunks, the scheduler " + std::to_string(r.chunk_count);
  if (std::string differs = compare_plan(*plan, r.chunks, rng); !differs.empty()) return differs;
  // Sampled steps beyond what the scheduler enumerated: the hint cursor and
  // a fresh search agree, and chunk k+1 starts where chunk k ends.
  std::size_t hint = 0;
  for (int probe = 0; probe < 200; ++probe) {
    const iter_t k = between(rng, 0, plan->chunk_count() - 1);
    const chunk a = plan->at(k, hint), b = plan->at(k), next = plan->at(k + 1);
    if (a.start != b.start || a.size != b.size) return "the hint changes plan.at(" + std::to_string(k) + ")";
    if (next.start != a.start + a.size) return "plan.at(" + std::to_string(k + 1) + ") does not start where chunk k ends";
  }
  return {};
}

TEST(CatalogProperty, FixedPlansAtHugeLoopSizes) {
  const std::uint64_t seed = master_seed() + 2;
  rng_t rng(seed);
  int index = 0;
  for (const auto& name : all_schedules(true)) {
    const schedule_spec spec = spec_of(name);
    bool failed = false;  // one failure per schedule, then the next schedule
    for (const iter_t n : {iter_t{1'000'000'000}, iter_t{1'000'000'000'000}, kMaxIter / 3, kMaxIter - 1, kMaxIter}) {
      for (const int p : {1, 3, 64, 4096}) {
        for (const iter_t min_chunk : {iter_t{1}, iter_t{1000}}) {
          loop_case c = random_case(rng);
          c.lp.n = n;
          c.lp.p = p;
          c.lp.min_chunk = min_chunk;
          // A max_chunk that clamps many chunks is served without a plan
          // (PlanBuildStaysBoundedUnderMaxChunk); keep those runs short here.
          c.lp.max_chunk = chance(rng, 0.2) ? log_between(rng, std::max(min_chunk, n >> 18), n) : 0;
          c.lp.chunk = 0;
          c.lp.powers.clear();
          c.queue.clear();
          c.seconds_per_iter.assign(static_cast<std::size_t>(p), 1e-9);
          const int this_case = index++;
          if (failed) continue;
          if (const std::string bad = check_huge_plan(spec, c, rng); !bad.empty()) {
            ADD_FAILURE() << trace(seed, this_case, name, c) << "\n  " << bad;
            failed = true;
          }
        }
      }
    }
  }
}

// A max_chunk that clamps a decreasing technique on a huge loop makes one
// long run the technique cannot announce: build() gives up quickly (the caller
// then serves the loop sequentially) or returns a correct plan; it never
// computes 10^10 chunks one by one.
TEST(CatalogProperty, PlanBuildStaysBoundedUnderMaxChunk) {
  for (const auto& name : all_schedules(true)) {
    loop_case c = plain_case(1'000'000'000'000, 8);
    c.lp.max_chunk = 100;
    const technique_ptr t = make_schedule(spec_of(name), c.lp);
    const std::optional<chunk_plan> plan = chunk_plan::build(*t, c.lp, 1u << 16);
    if (plan) {
      std::size_t runs = 0;
      const std::string bad = walk_plan(*plan, c.lp, runs);
      EXPECT_TRUE(bad.empty()) << name << ": " << bad;
    }
    const run_result r = run_schedule(spec_of(name), c, 10'000, 0);
    EXPECT_TRUE(r.failure.empty()) << name << ": " << r.failure;
  }
}

// W with equal powers and empty run queues changes nothing: w-X gives X's
// chunks (seed 000 eq. 2 with VP_k = Q_k = 1), for every technique, however
// large the chunks.
TEST(CatalogProperty, WeightingWithEqualPowersIsTheIdentity) {
  const std::uint64_t seed = master_seed() + 3;
  rng_t rng(seed);
  int index = 0;
  for (const auto& t : catalog()) {
    const std::string name(t.name);
    for (int i = 0; i < 20; ++i, ++index) {
      loop_case c = random_case(rng);
      if (i % 4 == 3) {  // chunks beyond 2^53, where doubles are no longer exact
        c.lp.n = kMaxIter - between(rng, 0, 1000);
        c.lp.min_chunk = c.lp.n / 20'000;
        c.lp.max_chunk = 0;
        c.lp.chunk = 0;
      }
      c.lp.powers.assign(c.lp.powers.empty() ? 0 : static_cast<std::size_t>(c.lp.p), 2.5);
      c.queue.clear();
      c.queue_drifts = false;
      const run_result plain = run_schedule(spec_of(name), c, kMaxIter, 1u << 20);
      const run_result weighted = run_schedule(spec_of("w-" + name), c, kMaxIter, 1u << 20);
      const std::string where = trace(seed, index, name, c);
      ASSERT_TRUE(plain.failure.empty() && weighted.failure.empty()) << where << "\n  " << plain.failure << weighted.failure;
      ASSERT_EQ(plain.chunk_count, weighted.chunk_count) << where;
      for (std::size_t k = 0; k < plain.chunks.size(); ++k)
        ASSERT_EQ(plain.chunks[k].size, weighted.chunks[k].size) << where << "\n  chunk " << k;
    }
  }
}

// ---------------------------------------------------------------------------
// Edge cases, for every schedule.


TEST(CatalogEdges, EmptyLoopHasNoChunk) {
  for (const auto& name : all_schedules(false)) {
    for (const int p : {1, 4, 4096}) {
      const run_result r = run_schedule(spec_of(name), plain_case(0, p), 10, 10);
      EXPECT_TRUE(r.failure.empty()) << name << " p=" << p << ": " << r.failure;
      EXPECT_TRUE(r.finished) << name;
      EXPECT_EQ(r.chunk_count, 0) << name << " p=" << p;
    }
    const schedule_spec spec = spec_of(name);
    if (!is_fixed(spec)) continue;
    const loop_params lp = plain_case(0, 3).lp;
    const technique_ptr t = make_schedule(spec, lp);
    const auto plan = chunk_plan::build(*t, lp);
    ASSERT_TRUE(plan.has_value()) << name;
    EXPECT_EQ(plan->chunk_count(), 0) << name;
    EXPECT_EQ(plan->at(0).size, 0) << name;
  }
}

TEST(CatalogEdges, TinyLoopsManyWorkers) {
  for (const auto& name : all_schedules(false)) {
    const schedule_spec spec = spec_of(name);
    for (const iter_t n : {1, 2, 7}) {
      for (const int p : {1, 2, 8, 4096}) {
        for (const auto order : {order_kind::round_robin, order_kind::random_worker}) {
          loop_case c = plain_case(n, p);
          c.order = order;
          const run_result r = run_schedule(spec, c, 100, 100);
          ASSERT_TRUE(r.failure.empty()) << name << " n=" << n << " p=" << p << ": " << r.failure;
          ASSERT_TRUE(r.finished) << name << " n=" << n << " p=" << p;
          if (n == 1) {
            EXPECT_EQ(r.chunk_count, 1) << name << " p=" << p;
          }
        }
      }
    }
  }
}

TEST(CatalogEdges, MinimumChunkAboveLoopSizeGivesOneChunk) {
  for (const auto& name : all_schedules(false)) {
    for (const int p : {1, 5, 4096}) {
      const run_result r = run_schedule(spec_of(name), plain_case(1000, p, 1001), 10, 10);
      ASSERT_TRUE(r.failure.empty()) << name << " p=" << p << ": " << r.failure;
      ASSERT_EQ(r.chunk_count, 1) << name << " p=" << p;
      EXPECT_EQ(r.chunks[0].size, 1000) << name << " p=" << p;
    }
  }
}

// OpenMP's dynamic,k: every chunk of k on one thread. With a granule every
// chunk but the last is whole granules, whatever the technique asks for.
TEST(CatalogEdges, GranuleMakesWholeChunks) {
  for (const auto& name : all_schedules(false)) {
    for (const iter_t granule : {2, 7, 64}) {
      loop_case c = plain_case(10'007, 3);
      c.lp.granule = granule;
      c.lp.powers = {1, 0.5, 0.25};
      const run_result r = run_schedule(spec_of(name), c, kMaxIter, 100'000);
      ASSERT_TRUE(r.failure.empty()) << name << " granule=" << granule << ": " << r.failure;
      for (std::size_t i = 0; i < r.chunks.size(); ++i)
        EXPECT_EQ(r.chunks[i].start % granule, 0) << name << " granule=" << granule << " chunk " << i;
    }
  }
}

TEST(CatalogEdges, MaximumChunkCapsEveryChunk) {
  for (const auto& name : all_schedules(false)) {
    for (const iter_t cap : {1, 3, 100}) {
      loop_case c = plain_case(10'000, 4);
      c.lp.max_chunk = cap;
      c.lp.powers = {1, 0.5, 0.25, 1};
      const run_result r = run_schedule(spec_of(name), c, kMaxIter, 0);  // check_chunk tests the cap
      ASSERT_TRUE(r.failure.empty()) << name << " max_chunk=" << cap << ": " << r.failure;
      EXPECT_GE(r.chunk_count, ceil(10'000.0 / static_cast<double>(cap))) << name;
    }
  }
}

// n near INT64_MAX with one worker and with 4096, weights spread 1000:1: no
// overflow anywhere (INT64_MAX / 2 + 1 catches a 2n). With a minimum chunk
// of n / 20,000 the whole loop is enumerated; with minimum 1, the first 2000
// chunks of each schedule.
TEST(CatalogEdges, LoopSizesNearInt64Max) {
  for (const auto& name : all_schedules(false)) {
    const schedule_spec spec = spec_of(name);
    for (const iter_t n : {kMaxIter, kMaxIter / 2 + 1}) {
      for (const int p : {1, 4096}) {
        for (const bool weighted : {false, true}) {
          loop_case c = plain_case(n, p, n / 20'000);
          if (weighted)
            for (int k = 0; k < p; ++k) c.lp.powers.push_back(k % 2 ? 1.0 : 0.001);
          c.order = order_kind::random_worker;
          const run_result whole = run_schedule(spec, c, kMaxIter, 0);
          ASSERT_TRUE(whole.failure.empty()) << name << " " << c.describe() << ": " << whole.failure;
          ASSERT_TRUE(whole.finished) << name << " " << c.describe();

          c.lp.min_chunk = 1;
          const run_result prefix = run_schedule(spec, c, 2000, 0);
          ASSERT_TRUE(prefix.failure.empty()) << name << " " << c.describe() << ": " << prefix.failure;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// validate(): bad weights are rejected with a message naming the value.

TEST(CatalogEdges, BadWeightsAreRejectedByName) {
  const auto message = [](std::vector<double> powers, int p = 3) {
    loop_params lp;
    lp.n = 100;
    lp.p = p;
    lp.powers = std::move(powers);
    return validate(lp);
  };
  const auto expect_mentions = [](const std::string& msg, const std::string& a, const std::string& b) {
    EXPECT_NE(msg.find(a), std::string::npos) << "'" << msg << "' does not name '" << a << "'";
    EXPECT_NE(msg.find(b), std::string::npos) << "'" << msg << "' does not name '" << b << "'";
  };
  EXPECT_EQ(message({1, 0.5, 2}), "");
  EXPECT_EQ(message({}), "");
  expect_mentions(message({1, 0, 1}), "weight 1 is 0", "> 0");
  expect_mentions(message({1, 1, -2}), "weight 2 is -2", "> 0");
  expect_mentions(message({std::numeric_limits<double>::quiet_NaN(), 1, 1}), "weight 0 is nan", "finite");
  expect_mentions(message({1, std::numeric_limits<double>::infinity(), 1}), "weight 1 is inf", "finite");
  expect_mentions(message({1, -std::numeric_limits<double>::infinity(), 1}), "weight 1 is -inf", "finite");
  expect_mentions(message({1, 1}), "2 weights given for 3 workers", "one per worker");
  expect_mentions(message({1, 1, 1, 1}), "4 weights given for 3 workers", "one per worker");
}

TEST(CatalogEdges, BadLoopParametersAreRejectedByName) {
  const auto message = [](auto change) {
    loop_params lp;
    lp.n = 100;
    lp.p = 4;
    change(lp);
    return validate(lp);
  };
  EXPECT_NE(message([](loop_params& lp) { lp.n = -5; }).find("-5"), std::string::npos);
  EXPECT_NE(message([](loop_params& lp) { lp.p = 0; }).find("worker count 0"), std::string::npos);
  EXPECT_NE(message([](loop_params& lp) { lp.min_chunk = 0; }).find("minimum chunk 0"), std::string::npos);
  EXPECT_NE(message([](loop_params& lp) { lp.max_chunk = -1; }).find("maximum chunk -1"), std::string::npos);
  EXPECT_NE(message([](loop_params& lp) { lp.granule = 0; }).find("granule 0"), std::string::npos);
  const std::string crossed = message([](loop_params& lp) { lp.min_chunk = 8, lp.max_chunk = 4; });
  EXPECT_NE(crossed.find("maximum chunk 4"), std::string::npos) << crossed;
  EXPECT_NE(crossed.find("minimum chunk 8"), std::string::npos) << crossed;
  EXPECT_NE(message([](loop_params& lp) { lp.mu = 0; }).find("mu"), std::string::npos);
  EXPECT_NE(message([](loop_params& lp) { lp.sigma = -1; }).find("sigma"), std::string::npos);
  EXPECT_NE(message([](loop_params& lp) { lp.overhead = std::nan(""); }).find("overhead nan"), std::string::npos);
  EXPECT_EQ(message([](loop_params& lp) { lp.min_chunk = 4, lp.max_chunk = 4; }), "");
}

}  // namespace
}  // namespace selfsched

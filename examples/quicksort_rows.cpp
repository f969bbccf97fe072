// quicksort_rows: sort each of N rows of random integers, one row per
// iteration of a schedule(runtime) loop. Seed 004 (Han & Chronopoulos 2016,
// Sect. 6.2) sorts 20000 rows of 20000 random numbers with quicksort; here the
// rows have random lengths (uniform in [1, max-len]), so the cost per
// iteration, O(L log L) for a row of length L, varies at random.
// std::sort is introsort: quicksort that falls back to heapsort on bad pivots.
#include <algorithm>

#include "common.hpp"

namespace {

// Order-independent fingerprint of a row's values: sorting must not change it.
std::uint64_t multiset_fingerprint(const std::int32_t* first, const std::int32_t* last) {
  std::uint64_t sum = 0;
  for (; first != last; ++first) sum += example::mix64(static_cast<std::uint32_t>(*first) + 0x9e3779b97f4a7c15ULL);
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t rows = 1000, max_len = 4000, seed = 1;
  bool verify = false;
  example::command_line cli("quicksort_rows",
                            "Sort rows of random integers, one row per iteration of the schedule(runtime)\n"
                            "loop. Random cost: row lengths are uniform in [1, max-len].");
  cli.option("rows", rows, 1, "number of rows; seed 004: 20000");
  cli.option("max-len", max_len, 1, "longest row; seed 004: all rows 20000 long");
  cli.option("seed", seed, 0, "seed of the lengths and values");
  cli.flag("verify", verify, "also sort a copy of every row serially and compare exactly");
  example::time_steps steps(cli);
  cli.parse(argc, argv);
  steps.check(cli);
  if (rows > 1'000'000'000 || max_len > 1'000'000'000 || rows * max_len > 4'000'000'000)
    cli.fail("--rows x --max-len '" + std::to_string(rows) + " x " + std::to_string(max_len) +
             "' is more than 4000000000 values (16 GB)");

  // Row r is values[offset[r], offset[r + 1]).
  const example::random_stream random_len(seed, 1), random_value(seed, 2);
  std::vector<std::int64_t> offset(rows + 1, 0);
  for (std::int64_t r = 0; r < rows; ++r)
    offset[r + 1] = offset[r] + random_len.between(r, 1, max_len);
  const std::int64_t total = offset.back();
  std::vector<std::int32_t> values(total);
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < total; ++v)
    values[v] = static_cast<std::int32_t>(random_value.bits(v));
  const auto row_begin = [&](std::vector<std::int32_t>& data, std::int64_t r) { return data.data() + offset[r]; };
  const auto row_end = [&](std::vector<std::int32_t>& data, std::int64_t r) { return data.data() + offset[r + 1]; };

  std::vector<std::uint64_t> fingerprint(rows);
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r)
    fingerprint[r] = multiset_fingerprint(row_begin(values, r), row_end(values, r));
  std::vector<std::int32_t> original;
  if (verify) original = values;

  example::loop_monitor monitor("quicksort_rows", rows);
  // Each step sorts the same unsorted rows again.
  const std::vector<std::int32_t> unsorted = steps.count() > 1 ? values : std::vector<std::int32_t>{};
  const double seconds = steps.run(monitor, [&] { values = unsorted; }, [&] {
#pragma omp parallel for schedule(runtime)
    for (std::int64_t r = 0; r < rows; ++r)
      monitor.run(r, [&] { std::sort(row_begin(values, r), row_end(values, r)); });
  });

  // Every row: sorted, and the same values as before.
  example::report rep("quicksort_rows");
  steps.add_to(rep);
  for (std::int64_t r = 0; r < rows; ++r) {
    const bool sorted = std::is_sorted(row_begin(values, r), row_end(values, r));
    const bool same = multiset_fingerprint(row_begin(values, r), row_end(values, r)) == fingerprint[r];
    rep.expect(sorted && same, "row " + std::to_string(r) + (sorted ? " lost or changed values" : " is not sorted"));
  }
  if (verify) {
    for (std::int64_t r = 0; r < rows; ++r) std::sort(row_begin(original, r), row_end(original, r));
    rep.expect(original == values, "rows differ from the serially sorted copy");
  }

  example::checksum sum;
  sum.add(values);
  rep.add("rows", rows);
  rep.add("max_len", max_len);
  rep.add("seed", seed);
  rep.add("values", total);
  return rep.finish(monitor, seconds, sum);
}

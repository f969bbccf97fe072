// synthetic: a busy-work loop whose cost per iteration follows one of the four
// workload profiles of seed 003 (Yang, Cheng & Li 2004, Fig. 1): uniform,
// increasing, decreasing and random. Iteration i performs units(i) units of a
// fixed integer kernel; units(i) is a pure function of (profile, n, work,
// seed), so the total work is known before the loop runs.
#include "common.hpp"

namespace {

struct workload {
  std::string profile = "random";
  std::int64_t n = 10000, work = 50, seed = 1;

  // Mean `work` units per iteration in every profile. The ramps run from 1
  // unit (seed 003's minimum workload b) to 2 work - 1 units.
  std::int64_t units(std::int64_t i) const {
    const auto ramp = [&](std::int64_t k) { return n == 1 ? work : 1 + 2 * (work - 1) * k / (n - 1); };
    if (profile == "increasing") return ramp(i);
    if (profile == "decreasing") return ramp(n - 1 - i);
    if (profile == "random") return example::random_stream(seed, 1).between(i, 1, 2 * work - 1);
    return work;  // uniform
  }

  // One unit: 64 dependent steps of a 64-bit LCG with an xorshift, which the
  // compiler cannot shortcut. Its result is kept so the work is not dropped.
  std::uint64_t run(std::int64_t i) const {
    std::uint64_t x = example::mix64(i);
    for (std::int64_t step = units(i) * 64; step > 0; --step) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      x ^= x >> 33;
    }
    return x;
  }
};

}  // namespace

int main(int argc, char** argv) {
  workload w;
  bool verify = false;
  example::command_line cli("synthetic",
                            "Busy-work loop whose cost per iteration follows a workload profile\n"
                            "(seed 003, Fig. 1); the total work in units is known in advance.");
  cli.option("n", w.n, 1, "iterations");
  cli.choice("profile", w.profile, {"uniform", "increasing", "decreasing", "random"},
             "units per iteration: work; linear from 1 up to 2 work - 1, or down; random in [1, 2 work - 1]");
  cli.option("work", w.work, 1, "mean units of work per iteration; a unit is 64 dependent integer steps");
  cli.option("seed", w.seed, 0, "seed of the random profile");
  cli.flag("verify", verify, "recompute every iteration serially (default: a sample) and compare exactly");
  example::time_steps steps(cli);
  cli.parse(argc, argv);
  steps.check(cli);
  if (w.n > 1'000'000'000) cli.fail("--n '" + std::to_string(w.n) + "' is larger than 1000000000");
  if (w.work > 1'000'000'000) cli.fail("--work '" + std::to_string(w.work) + "' is larger than 1000000000");

  std::int64_t total_units = 0;
  for (std::int64_t i = 0; i < w.n; ++i) total_units += w.units(i);

  std::vector<std::uint64_t> result(w.n);
  example::loop_monitor monitor("synthetic", w.n);
  const double seconds = steps.run(monitor, [&] { std::fill(result.begin(), result.end(), 0); }, [&] {
#pragma omp parallel for schedule(runtime)
    for (std::int64_t i = 0; i < w.n; ++i) monitor.run(i, [&] { result[i] = w.run(i); });
  });

  example::report r("synthetic");
  steps.add_to(r);
  for (const std::int64_t i : example::lines_to_check(w.n, verify))
    r.expect(result[i] == w.run(i), "iteration " + std::to_string(i) + " differs from the serial computation");

  example::checksum sum;
  sum.add(result);
  r.add("n", w.n);
  r.add("profile", w.profile);
  r.add("work", w.work);
  r.add("seed", w.seed);
  r.add("work_units", total_units);
  return r.finish(monitor, seconds, sum);
}

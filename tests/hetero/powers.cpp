// The VP each thread of a real OpenMP loop gets, read back from the profile:
// from SELFSCHED_WEIGHTS, an SIA file, hwloc CPU kinds (HWLOC_XMLFILE), or
// equal. The environment chooses the source (tests/hetero/CMakeLists.txt);
// the arguments say what must come out.
//
//   hetero_powers PROFILE.json [--source TEXT] [--source-not TEXT] [--thread-powers v0,v1]
//                 [--cpu-powers cpu=v,...] [--distinct-cpus] [--one-cpu-each] [--need-cpus a,b]
//
// --source / --source-not: text "powers_from" must / must not contain. --thread-powers: power of
// thread k. --cpu-powers: power of whichever thread ran on that CPU.
// --distinct-cpus: the two threads ran on different CPUs, each bound to
// fewer CPUs than the process may use (SELFSCHED_BIND). --one-cpu-each: each
// thread bound to one CPU of its own (OMP_PLACES=threads). --need-cpus: exit 77
// (skipped) unless the process may run on these CPUs.
#include <omp.h>
#include <sched.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "binding.hpp"
#include "selfsched.h"

namespace {

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> items;
  std::size_t from = 0;
  while (true) {
    const std::size_t at = text.find(by, from);
    items.push_back(text.substr(from, at - from));
    if (at == std::string::npos) return items;
    from = at + 1;
  }
}

int failures = 0;
void expect(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::getenv("SELFSCHED_PROFILE") == nullptr) {
    std::fprintf(stderr, "usage: SELFSCHED_PROFILE=f %s out.json [expectations]\n", argv[0]);
    return 2;
  }
  std::string source, source_not;
  std::vector<double> thread_powers;
  std::map<int, double> cpu_powers;
  bool distinct_cpus = false, one_cpu_each = false;
  for (int i = 2; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--distinct-cpus" || option == "--one-cpu-each") {
      (option == "--distinct-cpus" ? distinct_cpus : one_cpu_each) = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", option.c_str());
      return 2;
    }
    const std::string value = argv[++i];
    if (option == "--source") source = value;
    else if (option == "--source-not") source_not = value;
    else if (option == "--thread-powers")
      for (const auto& v : split(value, ',')) thread_powers.push_back(std::atof(v.c_str()));
    else if (option == "--cpu-powers")
      for (const auto& pair : split(value, ',')) {
        const auto parts = split(pair, '=');
        cpu_powers[std::atoi(parts.at(0).c_str())] = std::atof(parts.at(1).c_str());
      }
    else if (option == "--need-cpus") {
      cpu_set_t mask;
      sched_getaffinity(0, sizeof mask, &mask);
      for (const auto& cpu : split(value, ','))
        if (!CPU_ISSET(std::atoi(cpu.c_str()), &mask)) {
          std::printf("skipped: this machine has no CPU %s for the test\n", cpu.c_str());
          return 77;
        }
    } else {
      std::fprintf(stderr, "unknown option %s\n", option.c_str());
      return 2;
    }
  }

  cpu_set_t process_mask;
  sched_getaffinity(0, sizeof process_mask, &process_mask);
  // A first region: the threads start and say where they run.
  const hetero::team_binding binding = hetero::bind_check(2);
  if (one_cpu_each) {
    expect(binding.problem.empty(), "each thread is bound to one CPU of its own" +
                                        (binding.problem.empty() ? std::string() : ": " + binding.problem));
    if (!binding.problem.empty()) return 1;  // the powers per CPU below would mean nothing
  }
  selfsched_set_schedule("w-gss", 0);
  double sink = 0;
#pragma omp parallel for schedule(runtime) num_threads(2) reduction(+ : sink)
  for (long i = 0; i < 20000; ++i) sink += std::sqrt(static_cast<double>(i));
  if (selfsched_write_profile(argv[1]) != 0) {
    std::fprintf(stderr, "FAIL: selfsched_write_profile(%s)\n", argv[1]);
    return 1;
  }

  std::ifstream in(argv[1]);
  const auto profile = nlohmann::json::parse(in);
  const std::string from = profile.value("powers_from", "");
  std::printf("powers from: %s (sink %g)\n", from.c_str(), sink);
  if (!source.empty()) expect(from.find(source) != std::string::npos, "powers_from contains '" + source + "'");
  if (!source_not.empty())
    expect(from.find(source_not) == std::string::npos, "powers_from does not contain '" + source_not + "'");
  const auto& loop = profile.at("sites").at(0).at("loops").at(0);
  const auto& threads = loop.at("threads");
  expect(threads.size() == 2, "two threads in the loop");
  std::vector<int> cpus;
  for (const auto& t : threads) {
    const int k = t.at("thread"), cpu = t.at("cpu");
    const double power = t.at("power");
    cpus.push_back(cpu);
    std::printf("thread %d cpu %d power %.4f mean_queue %.3f\n", k, cpu, power, t.value("mean_queue", 0.0));
    if (k < static_cast<int>(thread_powers.size()))
      expect(std::fabs(power - thread_powers[static_cast<std::size_t>(k)]) < 1e-9,
             "thread " + std::to_string(k) + " has power " + std::to_string(thread_powers[static_cast<std::size_t>(k)]));
    if (cpu_powers.count(cpu))
      expect(std::fabs(power - cpu_powers[cpu]) < 1e-9,
             "the thread on cpu " + std::to_string(cpu) + " has power " + std::to_string(cpu_powers[cpu]));
  }
  if (distinct_cpus) {
    expect(cpus.size() == 2 && cpus[0] != cpus[1], "the threads ran on different CPUs");
    const int usable = CPU_COUNT(&process_mask);
    expect(binding.allowed[0] < usable && binding.allowed[1] < usable,
           "each thread was bound to fewer CPUs than the process may use");
  }
  return failures == 0 ? 0 : 1;
}

// The platform: every host (workers, masters, the supermaster) has its own
// link (bandwidth, latency) to the centre of a star, so the messages of many
// workers to one master share that master's link, as they share its NIC. A
// SimGrid platform file may stand in for the star.
#include <simgrid/kernel/ProfileBuilder.hpp>

#include <algorithm>
#include <string>

#include "engine.hpp"
#include "platform.hpp"

namespace sg4 = simgrid::s4u;

namespace selfsched::sim::detail {
namespace {

// Nodes of `workers` sharing a memory (platform_spec::workers_per_node).
std::size_t nodes(const platform_spec& platform, std::size_t workers) {
  const auto per = static_cast<std::size_t>(platform.workers_per_node);
  return (workers + per - 1) / per;
}

}  // namespace

hosts build_platform(sg4::Engine& engine, const platform_spec& platform, const run_spec& run, int masters) {
  hosts h;
  if (!platform.xml.empty()) {
    engine.load_platform(platform.xml);
    const auto named = [&](const std::string& name) { return engine.host_by_name_or_null(name); };
    for (int k = 0; sg4::Host* host = named("worker-" + std::to_string(k)); ++k) h.workers.push_back(host);
    if (h.workers.empty()) throw sim_error("platform " + platform.xml + ": no host named worker-0");
    for (int m = 0; m < masters; ++m) {
      sg4::Host* host = named("master-" + std::to_string(m));
      if (!host) throw sim_error("platform " + platform.xml + ": no host named master-" + std::to_string(m));
      h.masters.push_back(host);
    }
    if (run.via == transport::hier && !(h.super = named("supermaster")))
      throw sim_error("platform " + platform.xml + ": no host named supermaster (hier needs one)");
    for (std::size_t node = 0; platform.memory_share > 0 && node < nodes(platform, h.workers.size()); ++node) {
      sg4::Host* host = named("memory-" + std::to_string(node));
      if (!host)
        throw sim_error("platform " + platform.xml + ": no host named memory-" + std::to_string(node) +
                        " (a memory share needs one per node, its speed the node's bandwidth in flop/s of traffic)");
      h.memories.push_back(host);
    }
    return h;
  }
  sg4::NetZone* zone = sg4::create_star_zone("platform");
  const auto add_host = [&](const std::string& host_name, double speed, int cores = 1) {
    return detail::add_star_host(zone, host_name, speed * platform.flops, platform.bandwidth, platform.latency, cores);
  };
  for (int k = 0; k < platform.workers; ++k) {
    const double speed = platform.speeds.empty() ? 1.0 : platform.speeds[static_cast<std::size_t>(k) % platform.speeds.size()];
    h.workers.push_back(add_host("worker-" + std::to_string(k), speed, run.threads));
  }
  for (int m = 0; m < masters; ++m) h.masters.push_back(add_host("master-" + std::to_string(m), 1.0));
  if (run.via == transport::hier) h.super = add_host("supermaster", 1.0);
  // A node's memory is used by its workers' computations only: no link.
  for (std::size_t node = 0; platform.memory_share > 0 && node < nodes(platform, h.workers.size()); ++node)
    h.memories.push_back(zone->create_host("memory-" + std::to_string(node), platform.flops)->seal());
  zone->seal();
  return h;
}

void apply_slowdowns(const platform_spec& platform, const std::vector<sg4::Host*>& workers) {
  // The fraction of the host's speed from each date on (one profile per
  // worker, its slowdowns in date order).
  for (int k = 0; k < platform.workers; ++k) {
    std::vector<slowdown> mine;
    for (const slowdown& d : platform.slowdowns)
      if (d.worker == k) mine.push_back(d);
    if (mine.empty()) continue;
    std::sort(mine.begin(), mine.end(), [](const slowdown& a, const slowdown& b) { return a.from < b.from; });
    std::string dates;
    for (const slowdown& d : mine)
      dates += std::to_string(d.from) + " " + std::to_string(d.factor) + "\n" + std::to_string(d.until) + " 1\n";
    workers[static_cast<std::size_t>(k)]->set_speed_profile(
        simgrid::kernel::profile::ProfileBuilder::from_string("slowdown-" + std::to_string(k), dates, -1));
  }
}

}  // namespace selfsched::sim::detail

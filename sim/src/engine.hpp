// The SimGrid engine as every simulation here runs it (one per child
// process, child.hpp), and the star of links hosts hang on.
#pragma once

#include <simgrid/s4u.hpp>

#include <string>

namespace selfsched::sim::detail {

// SimGrid's default network model (LV08) multiplies every link's latency by
// 13.01 and its bandwidth by 0.97, factors fitted to TCP over Ethernet in
// 2008, and adds TCP's reverse (acknowledgement) traffic; here a link is
// what it is given, and carries the messages only. Quiet but for critical
// messages. Once per process.
inline simgrid::s4u::Engine& start_engine() {
  static char name[] = "selfsched-sim";
  static char quiet[] = "--log=root.thres:critical";
  static char latency_factor[] = "--cfg=network/latency-factor:1";
  static char bandwidth_factor[] = "--cfg=network/bandwidth-factor:1";
  static char crosstraffic[] = "--cfg=network/crosstraffic:0";
  static char* argv[] = {name, quiet, latency_factor, bandwidth_factor, crosstraffic, nullptr};
  static int argc = 5;
  static simgrid::s4u::Engine engine(&argc, argv);
  return engine;
}

// A host of `speed` flop/s with `cores`, on its own link to the star's centre.
inline simgrid::s4u::Host* add_star_host(simgrid::s4u::NetZone* zone, const std::string& name, double speed,
                                         double bandwidth, double latency, int cores = 1) {
  simgrid::s4u::Host* host = zone->create_host(name, speed)->set_core_count(cores)->seal();
  const simgrid::s4u::Link* link = zone->create_link(name + "-link", bandwidth)->set_latency(latency)->seal();
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {simgrid::s4u::LinkInRoute(link)}, true);
  return host;
}

}  // namespace selfsched::sim::detail

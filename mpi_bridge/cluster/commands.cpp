// system(): a command the program runs is run once for the job.
//
// Every rank runs serial code, so every rank's program would run the
// command, and a command that appends to a file (`echo line >> log`) would
// append once per rank. In serial code the ranks meet, rank 0 runs it and
// its status is every rank's (file_change.hpp); inside a shared region the
// calling rank runs it (its iterations are its own work); inside a
// replicated region rank 0 runs it and another rank, whose memory becomes
// rank 0's at the region's end, goes on as if it had succeeded.
//
// Not covered: popen() and fork()/exec() of the program's own, which run on
// every rank in serial code (docs/cluster.md).
#include <cstdlib>
#include <string>

#include "file_change.hpp"
#include "interposed.hpp"

namespace selfsched::cluster {
namespace {

int real_system(const char* command) {
  static const auto real = next_definition<int (*)(const char*)>("system");
  return real(command);
}

class run_command final : public file_change {
 public:
  explicit run_command(const char* command) : command_(command) {}
  std::string what() const override { return "runs the command '" + std::string(command_) + "'"; }
  outcome on_real() override { return {real_system(command_), 0}; }
  outcome on_private() override { return {0, 0}; }
  bool rank_zero_only() const override { return true; }

 private:
  const char* command_;
};

}  // namespace
}  // namespace selfsched::cluster

extern "C" __attribute__((visibility("default"))) int system(const char* command) {
  using namespace selfsched::cluster;
  cluster_process* p = cluster_process::get();
  // system(NULL) asks whether a shell exists: every rank may ask.
  if (command == nullptr || p == nullptr || p->ranks() == 1) return real_system(command);
  run_command change(command);
  return static_cast<int>(carry_out(change).value);
}

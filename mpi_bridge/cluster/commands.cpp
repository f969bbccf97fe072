// system() and popen(command, "w"): a command the program runs is run once
// for the job.
//
// Every rank runs serial code, so every rank's program would run the
// command, and a command that appends to a file (`echo line >> log`) would
// append once per rank. In serial code the ranks meet, rank 0 runs it and
// its status is every rank's (file_change.hpp); inside a shared region the
// calling rank runs it (its iterations are its own work); inside a
// replicated region rank 0 runs it and another rank, whose memory becomes
// rank 0's at the region's end, goes on as if it had succeeded.
//
// popen(command, "w") the same: a command that writes what the program
// sends it to a file (`gzip > out.gz`, a plot) would otherwise write it
// once per rank, into one file. Another rank's program gets a stream of its
// own from popen as well (to a command that reads and drops what it is
// sent), so that its FILE sits at the address rank 0's does, which the
// program keeps in its memory; pclose returns rank 0's status.
//
// Not covered: popen(command, "r") (every rank runs the command and reads
// what it writes, as serial code reads files) and fork()/exec() of the
// program's own, which run on every rank in serial code (docs/cluster.md).
#include <stdio.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "allocation.hpp"
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

FILE* real_popen(const char* command, const char* mode) {
  static const auto real = next_definition<FILE* (*)(const char*, const char*)>("popen");
  return real(command, mode);
}

int real_pclose(FILE* stream) {
  static const auto real = next_definition<int (*)(FILE*)>("pclose");
  return real(stream);
}

// The commands behind the streams popen(..., "w") opened, by stream: the
// same address on every rank.
struct pipes {
  std::mutex lock;
  std::map<FILE*, std::string> commands;
};
pipes& open_pipes() {
  static auto* all = new pipes;  // never destroyed: exit handlers may close streams
  return *all;
}

class pipe_to_command final : public file_change {
 public:
  pipe_to_command(const char* command, const char* mode) : command_(command), mode_(mode) {}
  std::string what() const override { return "starts the command '" + std::string(command_) + "' to write to"; }
  outcome on_real() override { return opened(real_popen(command_, mode_)); }
  // The same kind of stream, to a command that drops what it reads.
  outcome on_private() override { return opened(real_popen("exec cat > /dev/null", mode_)); }
  FILE* stream() const { return stream_; }

 private:
  outcome opened(FILE* stream) {
    stream_ = stream;
    return {stream != nullptr ? 0 : -1, stream != nullptr ? 0 : errno};
  }
  const char* command_;
  const char* mode_;
  FILE* stream_ = nullptr;
};

class close_pipe final : public file_change {
 public:
  close_pipe(FILE* stream, std::string command) : stream_(stream), command_(std::move(command)) {}
  std::string what() const override { return "closes its pipe to the command '" + command_ + "'"; }
  outcome on_real() override { return closed(); }
  outcome on_private() override {
    closed();
    return {0, 0};  // as if the command had succeeded (a replicated region: rank 0's memory follows)
  }
  bool rank_zero_only() const override { return true; }  // its status is rank 0's command's
  bool closed_here() const { return closed_; }

 private:
  outcome closed() {
    closed_ = true;
    const int status = real_pclose(stream_);
    return {status, status < 0 ? errno : 0};
  }
  FILE* stream_;
  std::string command_;
  bool closed_ = false;
};

}  // namespace
}  // namespace selfsched::cluster

extern "C" __attribute__((visibility("default"))) FILE* popen(const char* command, const char* mode) {
  using namespace selfsched::cluster;
  cluster_process* p = cluster_process::get();
  if (command == nullptr || mode == nullptr || mode[0] != 'w' || p == nullptr || p->ranks() == 1)
    return real_popen(command, mode);
  pipe_to_command change(command, mode);
  if (carry_out(change).value < 0) return nullptr;
  runtime_scope scope;
  pipes& all = open_pipes();
  std::lock_guard hold(all.lock);
  all.commands[change.stream()] = command;
  return change.stream();
}

extern "C" __attribute__((visibility("default"))) int pclose(FILE* stream) {
  using namespace selfsched::cluster;
  std::string command;
  {
    runtime_scope scope;
    pipes& all = open_pipes();
    std::lock_guard hold(all.lock);
    const auto found = all.commands.find(stream);
    if (found == all.commands.end()) return real_pclose(stream);
    command = std::move(found->second);
    all.commands.erase(found);
  }
  close_pipe change(stream, command);
  const std::int64_t status = carry_out(change).value;
  // In serial code another rank hears rank 0's status: its own stream is still open.
  if (!change.closed_here()) real_pclose(stream);
  return static_cast<int>(status);
}

extern "C" __attribute__((visibility("default"))) int system(const char* command) {
  using namespace selfsched::cluster;
  cluster_process* p = cluster_process::get();
  // system(NULL) asks whether a shell exists: every rank may ask.
  if (command == nullptr || p == nullptr || p->ranks() == 1) return real_system(command);
  run_command change(command);
  return static_cast<int>(carry_out(change).value);
}

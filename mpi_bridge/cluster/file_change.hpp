// How the ranks carry out one change the program makes to the file system
// (opening for writing, removing, renaming, truncating, making a
// directory), so that the job's files are written once and every rank's
// program sees what rank 0's sees:
//  - rank 0 changes the real file;
//  - another rank changes its private copy (private_view.hpp);
//  - in serial code (the initial thread, outside parallel regions), every
//    rank first prepares (copies the real file it is about to update),
//    then all meet, and only then does rank 0 change the real file: no rank
//    can see it changed before its own program got there. Rank 0's outcome
//    (success or errno) is then everyone's, and a rank whose program is
//    changing another file, or whose private copy fails, stops the job;
//  - in parallel regions no rank waits for another: inside a shared one
//    every rank changes the real file (its iterations are its own work;
//    a file it creates or truncates is noted, program.hpp's fresh_file),
//    inside a replicated one each rank as above but without meeting.
#pragma once

#include <cstdint>
#include <string>

namespace selfsched::cluster {

struct outcome {
  std::int64_t value = 0;  // < 0: failed; a descriptor for an open
  std::int32_t error = 0;  // errno when failed
};

class file_change {
 public:
  virtual ~file_change() = default;
  // What the program does, the same words on every rank: "opens '/a' for writing".
  virtual std::string what() const = 0;
  // On a rank other than 0, before rank 0 changes the real file: "" or why
  // its private copy cannot be made.
  virtual std::string prepare() { return {}; }
  // Rank 0 failed: what prepare() made goes.
  virtual void undo() {}
  virtual outcome on_real() = 0;
  // The private copy, once rank 0 succeeded; marks this rank's view.
  virtual outcome on_private() = 0;
  // The result is a file descriptor: rank 0's number on every rank.
  virtual bool gives_descriptor() const { return false; }
  // The absolute path of a file on_real() created or truncated (else ""):
  // a shared region may write it (program.hpp, fresh_file).
  virtual std::string fresh_path() const { return {}; }
  // In serial code, rank 0's outcome is every rank's, and on_private() is
  // not called (a command rank 0 runs for the job: commands.cpp).
  virtual bool rank_zero_only() const { return false; }
};

// Carries out `change` on this rank as above; errno is set when it failed.
outcome carry_out(file_change& change);

class cluster_process;
// Serial code: the initial thread, outside parallel regions.
bool in_serial_code(cluster_process& p);

}  // namespace selfsched::cluster

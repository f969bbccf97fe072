// Standard output and error of a shared region.
//
// The job's output is rank 0's: every other rank runs serial code too, with
// its standard output and error on /dev/null, since rank 0 writes the same.
// In a shared region a rank's threads do their own part of the team's work,
// and what they write to descriptor 1 or 2 (a progress line, a Fortran
// runtime's flush, printf: standard_streams.cpp) is the team's output. So
// while a shared region runs, every rank's descriptors 1 and 2 write into
// two memory files; at each merge rank 0 writes what every rank caught, its
// own first, then the others' in rank order (the order of lines between
// threads is any, as in one process), before the region goes on. Until
// then nothing of the window has reached the job's output, so a window
// that conflicts drops what it caught and the region runs again replicated
// (only output of an earlier window, written already, makes the job stop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace selfsched::cluster {

class output_relay {
 public:
  // Makes the memory files, at descriptors far above the program's own, so
  // that the program's descriptors are numbered alike on every rank. false:
  // it could not (no memfd), and a shared region's output on a rank other
  // than 0 makes it run replicated (rank 0's goes out as it is written).
  bool set_up();
  bool ready() const { return catch_[0] >= 0; }

  // A shared region begins and ends (or runs again replicated): descriptors
  // 1 and 2 point into the memory files, then back where they pointed.
  void begin_region();
  void end_region();

  // Bytes caught since the last take(), and since the region began.
  std::uint64_t pending() const;
  std::uint64_t caught_in_region() const { return taken_ + pending(); }
  std::uint64_t relayed() const { return taken_; }  // bytes rank 0 wrote for this one in the region
  // What was caught, as one blob for rank 0 (lengths, then the bytes), and
  // the files emptied.
  std::vector<std::byte> take();
  // The region runs again: what it caught is not the job's output.
  void drop();

  // Rank 0: writes one rank's blob to where descriptors 1 and 2 pointed
  // before the region.
  void write_out(std::span<const std::byte> blob) const;
  // The program exits inside a shared region (exit() on an error path): what
  // it caught goes out as one process's would, rank 0's to its descriptors,
  // another rank's standard error to `error_fd` (the job's, through its
  // agent), and descriptors 1 and 2 point back for the C library's last
  // flush.
  void exit_in_region(int rank, int error_fd);

 private:
  int catch_[2] = {-1, -1};  // memory files for descriptors 1 and 2
  int saved_[2] = {-1, -1};  // where 1 and 2 pointed before the region
  std::uint64_t taken_ = 0;
};

}  // namespace selfsched::cluster

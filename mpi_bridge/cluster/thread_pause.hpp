// Holding every other thread of this process still for a moment: they wait
// in a signal handler (a real-time signal, SIGRTMAX - 2) until released.
//
// Early writes (early_writes.cpp) put another rank's window into live memory
// while this rank's threads run. Written byte by byte, a thread could see a
// flag the other rank set after its data, and the data not yet: on x86 a
// thread of one process never can (stores become visible in program order),
// and a program that waits for the flag and then reads the data would be
// wrong. With the threads held, the whole window appears to them at once.
#pragma once

#include <chrono>

namespace selfsched::cluster {

// Installs the handler, unless the program has one for the signal already.
bool install_thread_pause();

// While alive, every other thread of the process that takes the signal
// within `patience` waits (1 s at most); a thread that does not (the signal
// blocked) runs on, and only it may see the writes made meanwhile in any
// order.
class thread_pause {
 public:
  explicit thread_pause(std::chrono::milliseconds patience = std::chrono::milliseconds(20));
  ~thread_pause();
  thread_pause(const thread_pause&) = delete;
  thread_pause& operator=(const thread_pause&) = delete;
  bool all_held() const { return all_held_; }

 private:
  bool active_ = false, all_held_ = false;
};

}  // namespace selfsched::cluster

// Every allocation of the process comes here first (this library is
// preloaded ahead of the C library): the program's go to its heap
// (program_heap.hpp), the runtime's to the C library's.
#pragma once

#include "program_heap.hpp"

namespace selfsched::cluster {

// The program's heap (mapped at its first use); nullptr until cluster mode
// is on in this process.
program_heap* the_program_heap();
// Called once at start-up when the process runs in cluster mode: from then
// on the program's allocations go to its heap. false (and nothing changes)
// when the heap's region cannot be had.
bool route_program_allocations();

// Which arena the calling thread allocates from (-1: none, it runs no program
// code, and its allocations are the runtime's), and whether it is inside a
// shared part of a parallel region (then a block of another arena is freed
// at the next synchronization point). Threads start with none; the initial
// thread takes the serial arena when cluster mode starts.
void set_thread_arena(int arena, bool shared_window);

// For the program's own mappings (program_mappings.cpp): whether an
// allocation `caller` makes on this thread now is the program's (as for
// malloc), and a mapping of zeroed whole pages of the program's heap for it
// (program_heap::allocate_mapping; nullptr and errno when there is no room).
bool allocating_for_program(void* caller);
void* program_mapping(std::size_t bytes);

// While one lives on a thread, that thread's allocations are the runtime's,
// whoever calls malloc: cluster mode's own work (messages, merges) must not
// touch the program's heap, least of all on one rank only.
class runtime_scope {
 public:
  runtime_scope();
  ~runtime_scope();
  runtime_scope(const runtime_scope&) = delete;
  runtime_scope& operator=(const runtime_scope&) = delete;
};

}  // namespace selfsched::cluster

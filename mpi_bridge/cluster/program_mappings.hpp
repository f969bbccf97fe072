// Memory the program maps for itself (mmap, mremap, munmap; the functions
// are interposed in program_mappings.cpp). Anonymous private memory, a
// large buffer or a custom allocator's arena, is memory like the heap: it
// is taken from the program's heap, page aligned and zeroed, so it sits at
// the same address on every rank and is merged like any block. So is a
// file mapped private and writable (a copy the program changes), its bytes
// read in when it is mapped. What cannot
// be taken from the heap (a file or shared memory mapped writable, System V
// shared memory attached, a fixed
// address, a reservation made accessible later, memory that is not
// readable and writable) is not merged: while the program has such a
// mapping, parallel regions run replicated, so that every rank's copy gets
// every write, never one rank's part alone.
#pragma once

#include <string>

namespace selfsched::cluster {

// A description of one live mapping of the program's that is not merged
// ("a file mapped: 4096 bytes at 0x7f..., writable", "" when there is none)
// on this rank.
std::string unmerged_program_mapping();

}  // namespace selfsched::cluster

// A shared loop's identity, the same on every rank running the same binary,
// so that the master and the checkpoints can tell that all ranks are in the
// same loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace selfsched::mpi::detail {

// FNV-1a over `size` bytes, continuing from `h`.
std::uint64_t fnv(std::uint64_t h, const void* data, std::size_t size);
// The loop's module, the offset of its ident_t there and its source string.
std::uint64_t site_hash(const void* site);
// ", at file:line" when the binary says, else "".
std::string describe(const void* site);

}  // namespace selfsched::mpi::detail

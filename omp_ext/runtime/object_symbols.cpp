#include "runtime/object_symbols.hpp"

#include <cstdint>

namespace selfsched::omp {
namespace {

// The GNU hash of a symbol name (the ELF GNU_HASH section's function).
std::uint32_t gnu_hash(const char* name) {
  std::uint32_t h = 5381;
  for (auto* c = reinterpret_cast<const unsigned char*>(name); *c != 0; ++c) h = h * 33 + *c;
  return h;
}

// The object's DT_GNU_HASH table, or nullptr. The loader has made the
// dynamic section's addresses absolute in most objects but not all (the
// vDSO's, and every object's where the section is read-only): an address
// below the object's base is still an offset.
const std::uint32_t* gnu_hash_table(const dl_phdr_info& object) {
  for (int k = 0; k < object.dlpi_phnum; ++k) {
    const ElfW(Phdr)& segment = object.dlpi_phdr[k];
    if (segment.p_type != PT_DYNAMIC) continue;
    for (auto* entry = reinterpret_cast<const ElfW(Dyn)*>(object.dlpi_addr + segment.p_vaddr); entry->d_tag != DT_NULL;
         ++entry) {
      if (entry->d_tag != DT_GNU_HASH) continue;
      ElfW(Addr) at = entry->d_un.d_ptr;
      if (at < object.dlpi_addr) at += object.dlpi_addr;
      return reinterpret_cast<const std::uint32_t*>(at);
    }
  }
  return nullptr;
}

}  // namespace

bool may_define(const dl_phdr_info& object, const char* name) {
  const std::uint32_t* table = gnu_hash_table(object);
  if (table == nullptr) return true;
  // nbuckets, symoffset, bloom_size, bloom_shift, then the Bloom filter's
  // words, one bit set per defined symbol for each of two hashes.
  const std::uint32_t bloom_size = table[2], bloom_shift = table[3];
  if (bloom_size == 0) return true;
  constexpr std::uint32_t word_bits = sizeof(ElfW(Addr)) * 8;
  const auto* bloom = reinterpret_cast<const ElfW(Addr)*>(table + 4);
  const std::uint32_t h = gnu_hash(name);
  const ElfW(Addr) word = bloom[(h / word_bits) % bloom_size];
  const ElfW(Addr) bits = (ElfW(Addr){1} << (h % word_bits)) | (ElfW(Addr){1} << ((h >> bloom_shift) % word_bits));
  return (word & bits) == bits;
}

}  // namespace selfsched::omp

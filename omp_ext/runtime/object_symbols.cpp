#include "runtime/object_symbols.hpp"

#include <cstdint>
#include <cstring>

namespace selfsched::omp {
namespace {

// The GNU hash of a symbol name (the ELF GNU_HASH section's function).
std::uint32_t gnu_hash(const char* name) {
  std::uint32_t h = 5381;
  for (auto* c = reinterpret_cast<const unsigned char*>(name); *c != 0; ++c) h = h * 33 + *c;
  return h;
}

// The SysV ELF hash (DT_HASH).
std::uint32_t sysv_hash(const char* name) {
  std::uint32_t h = 0;
  for (auto* c = reinterpret_cast<const unsigned char*>(name); *c != 0; ++c) {
    h = (h << 4) + *c;
    const std::uint32_t high = h & 0xf0000000u;
    h ^= high >> 24;
    h &= ~high;
  }
  return h;
}

// What the object's dynamic section says about its symbols. The loader has
// made the section's addresses absolute in most objects but not all (the
// vDSO's, and every object's where the section is read-only): an address
// below the object's base is still an offset.
struct dynamic_symbols {
  const std::uint32_t* gnu_hash = nullptr;
  const std::uint32_t* sysv_hash = nullptr;
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
};

dynamic_symbols dynamic_symbols_of(const dl_phdr_info& object) {
  dynamic_symbols d;
  const auto absolute = [&object](ElfW(Addr) at) { return at < object.dlpi_addr ? at + object.dlpi_addr : at; };
  for (int k = 0; k < object.dlpi_phnum; ++k) {
    const ElfW(Phdr)& segment = object.dlpi_phdr[k];
    if (segment.p_type != PT_DYNAMIC) continue;
    for (auto* entry = reinterpret_cast<const ElfW(Dyn)*>(object.dlpi_addr + segment.p_vaddr); entry->d_tag != DT_NULL;
         ++entry) {
      const ElfW(Addr) at = absolute(entry->d_un.d_ptr);
      if (entry->d_tag == DT_GNU_HASH) d.gnu_hash = reinterpret_cast<const std::uint32_t*>(at);
      if (entry->d_tag == DT_HASH) d.sysv_hash = reinterpret_cast<const std::uint32_t*>(at);
      if (entry->d_tag == DT_SYMTAB) d.symbols = reinterpret_cast<const ElfW(Sym)*>(at);
      if (entry->d_tag == DT_STRTAB) d.names = reinterpret_cast<const char*>(at);
    }
  }
  return d;
}

bool is_definition_of(const dynamic_symbols& d, std::uint32_t index, const char* name) {
  const ElfW(Sym)& symbol = d.symbols[index];
  return symbol.st_shndx != SHN_UNDEF && std::strcmp(d.names + symbol.st_name, name) == 0;
}

// The GNU hash table: nbuckets, symoffset, bloom_size, bloom_shift, the
// Bloom filter's words (one bit set per defined symbol for each of two
// hashes), the buckets (a chain's first symbol), then one hash a symbol
// from symoffset on, the lowest bit set at a chain's end.
bool gnu_defines(const dynamic_symbols& d, const char* name) {
  const std::uint32_t* table = d.gnu_hash;
  const std::uint32_t nbuckets = table[0], symoffset = table[1], bloom_size = table[2], bloom_shift = table[3];
  if (nbuckets == 0 || bloom_size == 0) return false;
  constexpr std::uint32_t word_bits = sizeof(ElfW(Addr)) * 8;
  const auto* bloom = reinterpret_cast<const ElfW(Addr)*>(table + 4);
  const std::uint32_t h = gnu_hash(name);
  const ElfW(Addr) word = bloom[(h / word_bits) % bloom_size];
  const ElfW(Addr) bits = (ElfW(Addr){1} << (h % word_bits)) | (ElfW(Addr){1} << ((h >> bloom_shift) % word_bits));
  if ((word & bits) != bits) return false;
  const auto* buckets = reinterpret_cast<const std::uint32_t*>(bloom + bloom_size);
  const std::uint32_t* chain_hashes = buckets + nbuckets;
  std::uint32_t index = buckets[h % nbuckets];
  if (index < symoffset) return false;
  for (;; ++index) {
    const std::uint32_t chained = chain_hashes[index - symoffset];
    if ((chained | 1) == (h | 1) && is_definition_of(d, index, name)) return true;
    if ((chained & 1) != 0) return false;
  }
}

// The SysV hash table: nbucket, nchain, the buckets, the chains.
bool sysv_defines(const dynamic_symbols& d, const char* name) {
  const std::uint32_t nbucket = d.sysv_hash[0];
  if (nbucket == 0) return false;
  const std::uint32_t* buckets = d.sysv_hash + 2;
  const std::uint32_t* chains = buckets + nbucket;
  for (std::uint32_t index = buckets[sysv_hash(name) % nbucket]; index != STN_UNDEF; index = chains[index])
    if (is_definition_of(d, index, name)) return true;
  return false;
}

}  // namespace

bool holds(const dl_phdr_info& object, const void* address) {
  const auto at = reinterpret_cast<ElfW(Addr)>(address);
  for (int k = 0; k < object.dlpi_phnum; ++k) {
    const ElfW(Phdr)& segment = object.dlpi_phdr[k];
    const ElfW(Addr) start = object.dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD && at >= start && at < start + segment.p_memsz) return true;
  }
  return false;
}

bool defines(const dl_phdr_info& object, const char* name) {
  const dynamic_symbols d = dynamic_symbols_of(object);
  if (d.symbols == nullptr || d.names == nullptr) return false;
  if (d.gnu_hash != nullptr) return gnu_defines(d, name);
  return d.sysv_hash != nullptr && sysv_defines(d, name);
}

}  // namespace selfsched::omp

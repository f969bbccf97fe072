// What a loaded object holds, asked of its own program headers: whether an
// address lies in it, and whether it defines a symbol, asked of its own hash
// table (GNU or SysV) and dynamic symbols: a few dozen loads, where
// dlopen(RTLD_NOLOAD), dlsym and dlclose of each loaded object cost
// thousands of instructions each and take the loader's lock (a search of
// every loaded object for a tool, at start-up; teams.cpp).
#pragma once

#include <link.h>

namespace selfsched::omp {

// Does `address` lie in one of the object's loaded segments?
bool holds(const dl_phdr_info& object, const void* address);

// Does the object itself define `name` (any version), not merely refer to
// it? false as well for an object without a hash table or symbols, which
// the loader could not have bound to either.
bool defines(const dl_phdr_info& object, const char* name);

}  // namespace selfsched::omp

// Whether a loaded object could define a symbol, asked of the object's own
// GNU hash table: a few loads, where dlopen(RTLD_NOLOAD) and dlsym of each
// loaded object cost thousands of instructions each (a search of every
// loaded object for a tool, at start-up; teams.cpp).
#pragma once

#include <link.h>

namespace selfsched::omp {

// false: the object defines no `name` (its GNU hash table's Bloom filter
// says so). true: it may; only dlsym can tell. Also true for an object
// without a GNU hash table.
bool may_define(const dl_phdr_info& object, const char* name);

}  // namespace selfsched::omp

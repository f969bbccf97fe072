// What a simulator call says when it refuses its input ("no error" if it
// does not), for the tests' bad-input checks.
#pragma once

#include <string>

#include "selfsched/sim.hpp"

namespace selfsched::sim {

template <typename F>
std::string sim_error_of(F&& f) {
  try {
    f();
  } catch (const sim_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace selfsched::sim

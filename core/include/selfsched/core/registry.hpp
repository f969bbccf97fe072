// The catalog: one row per technique (name, kind, doc, paper, factory).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "selfsched/core/technique.hpp"

namespace selfsched {

enum class technique_kind {
  fixed,     // chunk sequence fixed by (n, p, params): claims by fetch-and-add
  weighted,  // depends on who asks (VP_k, Q_k)
  adaptive,  // learns from measured chunk times
};

struct technique_info {
  std::string_view name;
  std::string_view alias;  // another accepted name, or empty
  technique_kind kind;
  std::string_view summary;  // one line
  std::string_view source;   // paper and equation
  technique_ptr (*make)(const loop_params&);
  // Is the ",k" of "name,k" this technique's chunk size (css) rather than
  // the minimum chunk (all others)?
  bool chunk_is_size = false;
  // Sizes its own chunks from measured times (auto, auto_tuning.hpp):
  // bindings that can time each claim serve it without the sequential
  // scheduler (omp_ext: each thread from its own share, omp_ext/team_auto).
  bool self_tuning = false;
};

std::span<const technique_info> catalog();
const technique_info* find_technique(std::string_view name);  // exact, lowercase

// "static, ss, css, ..." for error messages.
std::string catalog_names();

}  // namespace selfsched

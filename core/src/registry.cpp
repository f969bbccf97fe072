// The catalog. Adding a technique: one file in techniques/, its factory in
// techniques/techniques.hpp, one row here, its tests.
#include "selfsched/core/registry.hpp"

#include <array>

#include "techniques/techniques.hpp"

namespace selfsched {
namespace {

using enum technique_kind;
namespace t = techniques;

constexpr std::array rows{
    technique_info{"static", "", fixed, "p equal chunks, one per worker",
                   "OpenMP schedule(static)", t::make_static},
    technique_info{"ss", "pss", fixed, "one iteration per request",
                   "Tang & Yew 1986; seed 002 sec. 2", t::make_ss},
    technique_info{"css", "", fixed, "constant chunk k (default ceil(n/2p))",
                   "Kruskal & Weiss 1985; seed 000 sec. 2", t::make_css, true},
    technique_info{"gss", "", fixed, "C = ceil(R/p)",
                   "Polychronopoulos & Kuck 1987; seed 000 sec. 2", t::make_gss},
    technique_info{"tss", "", fixed, "linear decrease from n/2p to 1",
                   "Tzen & Ni 1993; seed 000 sec. 2", t::make_tss},
    technique_info{"fss", "fac2", fixed, "batches of p chunks of ceil(R/2p)",
                   "Hummel et al. 1992; seed 000 sec. 2, seed 002", t::make_fss},
};

}  // namespace

std::span<const technique_info> catalog() { return rows; }

const technique_info* find_technique(std::string_view name) {
  for (const auto& row : rows)
    if (row.name == name || (!row.alias.empty() && row.alias == name)) return &row;
  return nullptr;
}

std::string catalog_names() {
  std::string names;
  for (const auto& row : rows) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  return names;
}

}  // namespace selfsched

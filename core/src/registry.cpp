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
    technique_info{"fac", "", fixed, "batches of p chunks of ceil(R/(x p)), x from mu, sigma",
                   "Hummel, Schonberg & Flynn 1992", t::make_fac},
    technique_info{"tfss", "", fixed, "batches of p chunks, each the mean of p tss chunks",
                   "Chronopoulos, Andonie, Benche & Grosu 2001", t::make_tfss},
    technique_info{"fiss", "", fixed, "B stages of p chunks growing by a fixed increment",
                   "Philip & Das 1997", t::make_fiss},
    technique_info{"viss", "", fixed, "stages of p chunks K0 (2 - 2^-i), K0 = n/p^2",
                   "Philip & Das 1997", t::make_viss},
    technique_info{"mfsc", "", fixed, "constant chunk giving fac2's chunk count",
                   "Carino & Banicescu (DLS); Korndoerfer et al. 2021", t::make_mfsc},
    technique_info{"fsc", "", fixed, "constant chunk (sqrt2 n h / (sigma p sqrt(ln p)))^(2/3)",
                   "Kruskal & Weiss 1985", t::make_fsc},
    technique_info{"tap", "", fixed, "gss tapered by v = sigma/mu",
                   "Lucco 1992", t::make_tap},
    technique_info{"rnd", "", fixed, "random chunk in [min, ceil(n/2p)], seeded",
                   "Korndoerfer et al. 2021 (LB4OMP)", t::make_rnd},
    technique_info{"pls", "", fixed, "p chunks of ceil(n/2p), then gss",
                   "Shih, Yang & Tseng 2007", t::make_pls},
    technique_info{"wf", "", weighted, "fss batches, chunk x p*A_k/A (A_k = VP_k/Q_k)",
                   "Hummel, Schmidt, Uma & Wein 1996", t::make_wf},
    technique_info{"dtss", "", weighted, "tss trapezoid for power A; a request takes A_k units",
                   "Chronopoulos et al. 2001; seed 000 sec. 2, seed 004 Alg. 1", t::make_dtss},
    technique_info{"dfss", "", weighted, "stages of ceil(R/2A) x A_k until A is served",
                   "Han & Chronopoulos 2016; seed 004 Alg. 2", t::make_dfss},
    technique_info{"dgss", "", weighted, "C = ceil(R/A) x A_k",
                   "Han & Chronopoulos 2016; seed 004 Alg. 3", t::make_dgss},
    technique_info{"awf", "", adaptive, "wf, weights learned between loop instances",
                   "Banicescu, Velusamy & Devaprasad 2003", t::make_awf},
    technique_info{"awf-b", "", adaptive, "awf, weights learned per batch",
                   "Carino & Banicescu 2008", t::make_awf_b},
    technique_info{"awf-c", "", adaptive, "awf, weights learned per chunk",
                   "Carino & Banicescu 2008", t::make_awf_c},
    technique_info{"awf-d", "", adaptive, "awf-b, chunk times include overhead h",
                   "Carino & Banicescu 2008", t::make_awf_d},
    technique_info{"awf-e", "", adaptive, "awf-c, chunk times include overhead h",
                   "Carino & Banicescu 2008", t::make_awf_e},
    technique_info{"af", "", adaptive, "C = (D + 2ER - sqrt(D^2 + 4DER)) / 2mu_k from measured mu, sigma",
                   "Banicescu & Liu 2000", t::make_af},
    technique_info{"bold", "", adaptive, "factoring hedged by mu, sigma, h and tracked progress",
                   "Hagerup 1997", t::make_bold},
    technique_info{"auto", "best", adaptive,
                   "from 1, chunks sized by measured iteration time: claims under 1%, a quarter of a share of R",
                   "auto_tuning.hpp; factoring weighted by measured rates as in af", t::make_auto, false, true},
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
    if (!row.alias.empty()) names += "/" + std::string(row.alias);
  }
  return names;
}

}  // namespace selfsched

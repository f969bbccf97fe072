#include "selfsched/core/wavefront.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "arith.hpp"

namespace selfsched {
namespace {

// Larger distances cannot be meant and would risk overflow in the skew.
constexpr iter_t max_distance = iter_t{1} << 40;

std::string show(const wavefront_index& v, int rank) {
  std::string text = "(";
  for (int d = 0; d < rank; ++d) text += (d ? ", " : "") + std::to_string(v[d]);
  return text + ")";
}

// First non-zero component, in the given order of dimensions.
iter_t leading(const wavefront_index& v, const std::vector<int>& order) {
  for (int d : order)
    if (v[d] != 0) return v[d];
  return 0;
}

std::vector<int> written_order(int rank) {
  std::vector<int> order;
  for (int d = 0; d < rank; ++d) order.push_back(d);
  return order;
}

// Inside an interval: u_s first, then the other dimensions as written.
std::vector<int> interval_order(int rank, int sync_dim) {
  std::vector<int> order{sync_dim};
  for (int d = 0; d < rank; ++d)
    if (d != sync_dim) order.push_back(d);
  return order;
}

std::string dims_text(int s, int c) {
  return "u_s = dimension " + std::to_string(s) + ", u_c = dimension " + std::to_string(c);
}

// The plan for one choice of (u_s, u_c), or why that choice is illegal.
wavefront_plan_result plan_for(const wavefront_problem& p, int s, int c, iter_t sync_points) {
  wavefront_plan_result result;
  wavefront_plan& plan = result.plan;
  plan.rank = p.rank;
  plan.extents = p.extents;
  plan.sync_dim = s;
  plan.chunk_dim = c;
  for (int d = 0; d < p.rank; ++d)
    if (d != s && d != c) plan.other_dim = d;
  const std::vector<int> inner = interval_order(p.rank, s);
  plan.run_dim = inner.back();

  for (const wavefront_index& d : p.dependences) {
    const std::string where = "dependence " + show(d, p.rank) + " with " + dims_text(s, c);
    if (d[s] < 0)
      return result.error = where + " steps back along u_s (component " + std::to_string(d[s]) +
                            "): intervals run forward along u_s; choose a u_s along which no dependence "
                            "component is negative",
             result;
    if (d[s] == 0 && d[c] < 0)
      return result.error = where + " steps back along u_c (component " + std::to_string(d[c]) +
                            ") within one u_s row: no order of chunks honours it",
             result;
    if (leading(d, inner) <= 0)
      return result.error = where + " is not lexicographically positive in the order used inside an "
                            "interval (u_s first, then the other dimensions as written)",
             result;
    if (d[s] > 0 && d[c] < 0) plan.skew = std::max(plan.skew, arith::ceil_div(-d[c], d[s]));
  }
  for (const wavefront_index& d : p.dependences) {
    plan.halo = std::max(plan.halo, d[c] + plan.skew * d[s]);
    plan.reach = std::max(plan.reach, d[s]);
  }

  const iter_t us = p.extents[s], uc = p.extents[c];
  bool empty = false;
  for (int d = 0; d < p.rank; ++d) empty = empty || p.extents[d] == 0;
  if (!empty) {
    iter_t shift = 0;
    if (__builtin_mul_overflow(plan.skew, us - 1, &shift) || __builtin_add_overflow(uc, shift, &plan.chunk_extent))
      return result.error = "the skewed chunk dimension (U_c + " + std::to_string(plan.skew) +
                            " x (U_s - 1)) with " + dims_text(s, c) + " does not fit in 64 bits",
             result;
  }
  plan.sync_points = sync_points;
  plan.interval = sync_interval(us, sync_points);
  plan.tiles = empty ? 0 : arith::ceil_div(us, plan.interval);
  return result;
}

// Candidate dimensions, longest first; ties: the outermost first.
std::vector<int> by_length(const wavefront_problem& p, int exclude) {
  std::vector<int> dims;
  for (int d = 0; d < p.rank; ++d)
    if (d != exclude) dims.push_back(d);
  std::sort(dims.begin(), dims.end(), [&](int a, int b) {
    return p.extents[a] != p.extents[b] ? p.extents[a] > p.extents[b] : a < b;
  });
  return dims;
}

}  // namespace

iter_t sync_interval(iter_t sync_extent, iter_t sync_points) {
  if (sync_extent <= 0 || sync_points <= 0) return 1;
  return std::max<iter_t>(1, arith::ceil_div(sync_extent, sync_points));
}

std::pair<iter_t, iter_t> wavefront_plan::tile_rows(iter_t t) const {
  const iter_t us = extents[sync_dim];
  const iter_t first = std::min(us, t * interval);
  return {first, first + std::min(interval, us - first)};
}

std::pair<iter_t, iter_t> wavefront_plan::row_span(chunk c, iter_t s) const {
  const iter_t shift = skew * s;  // <= chunk_extent - U_c: no overflow
  const iter_t first = std::max<iter_t>(0, c.start - shift);
  const iter_t last = std::min(extents[chunk_dim], c.start + c.size - shift);
  return {first, std::max(first, last)};
}

iter_t wavefront_plan::iterations(chunk c) const {
  iter_t total = 0;
  for (iter_t s = 0; s < extents[sync_dim]; ++s) {
    const auto [first, last] = row_span(c, s);
    total += last - first;
  }
  return other_dim >= 0 ? total * extents[other_dim] : total;
}

wavefront_plan_result plan_wavefront(const wavefront_problem& p, iter_t sync_points) {
  wavefront_plan_result bad;
  if (p.rank < 2 || p.rank > wavefront_max_rank)
    return bad.error = "rank " + std::to_string(p.rank) + " is not supported; valid: 2, 3", bad;
  for (int d = 0; d < p.rank; ++d)
    if (p.extents[d] < 0)
      return bad.error = "extent of dimension " + std::to_string(d) + " is " + std::to_string(p.extents[d]) +
                         "; extents must be >= 0",
             bad;
  if (sync_points < 1)
    return bad.error = "#SP " + std::to_string(sync_points) + " must be >= 1", bad;
  for (const auto& [name, dim] : {std::pair{"u_c (chunk_dim)", p.chunk_dim}, std::pair{"u_s (sync_dim)", p.sync_dim}})
    if (dim < -1 || dim >= p.rank)
      return bad.error = std::string(name) + " " + std::to_string(dim) +
                         " is not a dimension; valid: -1 (choose), 0.." + std::to_string(p.rank - 1),
             bad;
  if (p.chunk_dim >= 0 && p.chunk_dim == p.sync_dim)
    return bad.error = "u_c and u_s are both dimension " + std::to_string(p.chunk_dim) + "; they must differ", bad;

  const std::vector<int> written = written_order(p.rank);
  for (const wavefront_index& d : p.dependences) {
    for (int k = 0; k < p.rank; ++k)
      if (d[k] > max_distance || d[k] < -max_distance)
        return bad.error = "dependence " + show(d, p.rank) + " has a component beyond +-2^40", bad;
    const iter_t lead = leading(d, written);
    if (lead == 0)
      return bad.error = "dependence " + show(d, p.rank) + " is zero: an iteration cannot wait for itself", bad;
    if (lead < 0)
      return bad.error = "dependence " + show(d, p.rank) +
                         " is not lexicographically positive: in the loop's written order (dimension 0 outermost) "
                         "an iteration would need a later one",
             bad;
  }

  // The user's choice, or every pair in order of preference.
  std::vector<std::pair<int, int>> candidates;
  for (int s : p.sync_dim >= 0 ? std::vector<int>{p.sync_dim} : by_length(p, p.chunk_dim))
    for (int c : p.chunk_dim >= 0 ? std::vector<int>{p.chunk_dim} : by_length(p, s))
      if (c != s) candidates.emplace_back(s, c);

  wavefront_plan_result first;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    wavefront_plan_result r = plan_for(p, candidates[i].first, candidates[i].second, sync_points);
    if (r.ok()) return r;
    if (i == 0) first = std::move(r);
  }
  if (candidates.size() > 1) first.error += " (and no other choice of u_s and u_c is legal either)";
  return first;
}

namespace {
loop_params over(loop_params lp, iter_t n) {
  lp.n = n;
  return lp;
}
}  // namespace

synchronized_schedule::synchronized_schedule(const wavefront_plan& plan, const schedule_spec& spec, loop_params lp)
    : scheduler_(spec, over(std::move(lp), plan.chunk_extent)) {}

synchronized_schedule::assignment synchronized_schedule::next(int worker, double queue) {
  assignment a;
  a.sequence = static_cast<iter_t>(workers_.size());
  a.span = scheduler_.next(worker, queue);
  if (a.span.size == 0) return a;
  if (!workers_.empty()) a.receive_from = workers_.back();
  workers_.push_back(worker);
  return a;
}

int synchronized_schedule::send_to(iter_t sequence) const {
  const auto next = static_cast<std::size_t>(sequence) + 1;
  return sequence >= 0 && next < workers_.size() ? workers_[next] : -1;
}

}  // namespace selfsched

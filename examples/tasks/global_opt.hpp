// Seed 001's adaptive, asynchronous global optimization (global_opt.cpp
// says what it does): the test functions, the two task kinds and the
// search, shared by the threads program (tasks/global_opt.cpp) and the
// ranks program (mpi/global_opt.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "../common.hpp"

namespace global_opt {

inline constexpr int max_dim = 6;
using point = std::array<double, max_dim>;

struct problem {
  const char* name;
  int dim;
  double lo[max_dim], hi[max_dim];
  double known_minimum;
  double (*f)(const point&);
};

inline double branin(const point& x) {
  const double pi = 3.14159265358979323846, b = 5.1 / (4 * pi * pi), c = 5 / pi, t = 1 / (8 * pi);
  const double y = x[1] - b * x[0] * x[0] + c * x[0] - 6;
  return y * y + 10 * (1 - t) * std::cos(x[0]) + 10;
}

inline double goldstein_price(const point& p) {
  const double x = p[0], y = p[1];
  const double a = 1 + (x + y + 1) * (x + y + 1) * (19 - 14 * x + 3 * x * x - 14 * y + 6 * x * y + 3 * y * y);
  const double b = 30 + (2 * x - 3 * y) * (2 * x - 3 * y) * (18 - 32 * x + 12 * x * x + 48 * y - 36 * x * y + 27 * y * y);
  return a * b;
}

template <int Dim, int Terms>
double hartman(const point& x, const double (&a)[Terms][Dim], const double (&p)[Terms][Dim]) {
  const double c[4] = {1.0, 1.2, 3.0, 3.2};
  double sum = 0;
  for (int i = 0; i < Terms; ++i) {
    double e = 0;
    for (int j = 0; j < Dim; ++j) e += a[i][j] * (x[j] - p[i][j]) * (x[j] - p[i][j]);
    sum += c[i] * std::exp(-e);
  }
  return -sum;
}

inline double hartman3(const point& x) {
  static const double a[4][3] = {{3, 10, 30}, {0.1, 10, 35}, {3, 10, 30}, {0.1, 10, 35}};
  static const double p[4][3] = {{0.3689, 0.1170, 0.2673},
                                 {0.4699, 0.4387, 0.7470},
                                 {0.1091, 0.8732, 0.5547},
                                 {0.03815, 0.5743, 0.8828}};
  return hartman<3, 4>(x, a, p);
}

inline double hartman6(const point& x) {
  static const double a[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                 {0.05, 10, 17, 0.1, 8, 14},
                                 {3, 3.5, 1.7, 10, 17, 8},
                                 {17, 8, 0.05, 10, 0.1, 14}};
  static const double p[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                 {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                 {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                 {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
  return hartman<6, 4>(x, a, p);
}

template <int Terms>
double shekel(const point& x) {
  static const double a[10][4] = {{4, 4, 4, 4}, {1, 1, 1, 1}, {8, 8, 8, 8}, {6, 6, 6, 6}, {3, 7, 3, 7},
                                  {2, 9, 2, 9}, {5, 5, 3, 3}, {8, 1, 8, 1}, {6, 2, 6, 2}, {7, 3.6, 7, 3.6}};
  static const double c[10] = {0.1, 0.2, 0.2, 0.4, 0.4, 0.6, 0.3, 0.7, 0.5, 0.5};
  double sum = 0;
  for (int i = 0; i < Terms; ++i) {
    double d = c[i];
    for (int j = 0; j < 4; ++j) d += (x[j] - a[i][j]) * (x[j] - a[i][j]);
    sum += 1 / d;
  }
  return -sum;
}

inline const problem problems[] = {
    {"branin", 2, {-5, 0}, {10, 15}, 0.397887357729739, branin},
    {"goldstein-price", 2, {-2, -2}, {2, 2}, 3.0, goldstein_price},
    {"hartman3", 3, {0, 0, 0}, {1, 1, 1}, -3.86278214782076, hartman3},
    {"hartman6", 6, {0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1}, -3.32236801141551, hartman6},
    {"shekel5", 4, {0, 0, 0, 0}, {10, 10, 10, 10}, -10.1531996790582, shekel<5>},
    {"shekel7", 4, {0, 0, 0, 0}, {10, 10, 10, 10}, -10.4029405668187, shekel<7>},
    {"shekel10", 4, {0, 0, 0, 0}, {10, 10, 10, 10}, -10.5364098166920, shekel<10>},
};

// The two task kinds, as trivially copyable payloads.
enum class kind : std::int32_t { subregion, minimize };
struct task_payload {
  kind what;
  std::int32_t skip;   // subregion: levels to wait before sampling again (delayed scheduling)
  std::int64_t id;     // subregion: its number; minimize: the start point's
  double density;      // subregion: samples per unit of (normalized) volume
  point lo, hi;        // subregion: its box
  point start;         // minimize: the start point
};

inline constexpr double subregion_priority = 1, minimize_priority = 0;

struct search {
  search(const problem& problem_, std::int64_t levels_, std::int64_t work_) : p(problem_), levels(levels_), work(work_) {}

  const problem& p;
  std::int64_t levels;
  std::int64_t work;  // extra rounds of arithmetic per evaluation: an expensive f
  std::mutex lock;  // guards what follows
  std::vector<std::pair<point, double>> minimizers;
  double best_sample = INFINITY;
  std::int64_t evaluations = 0, local_searches = 0, subregion_tasks = 0;

  double f(const point& x) const {
    double y = p.f(x);
    volatile double sink = y;
    for (std::int64_t k = 0; k < work; ++k) sink = sink * 0.999999 + 1e-9;
    return y;
  }

  point clamp(point x) const {
    for (int j = 0; j < p.dim; ++j) x[j] = std::clamp(x[j], p.lo[j], p.hi[j]);
    return x;
  }

  // Distance in the domain normalized to the unit cube.
  double distance(const point& a, const point& b) const {
    double d = 0;
    for (int j = 0; j < p.dim; ++j) {
      const double u = (a[j] - b[j]) / (p.hi[j] - p.lo[j]);
      d += u * u;
    }
    return std::sqrt(d);
  }

  double volume(const point& lo, const point& hi) const {
    double v = 1;
    for (int j = 0; j < p.dim; ++j) v *= (hi[j] - lo[j]) / (p.hi[j] - p.lo[j]);
    return v;
  }

  template <typename Pool>  // selfsched::task_pool or selfsched::mpi::task_pool
  void subregion(Pool& pool, const task_payload& t, int level) {
    if (level + 1 >= levels && t.skip > 0) return;
    if (t.skip > 0) {  // delayed: nothing this iteration, sample again at the next
      task_payload next = t;
      --next.skip;
      pool.put(next, level + 1, subregion_priority);
      return;
    }
    const example::random_stream random(t.id * 1000 + level, 7);
    const auto samples = std::max<std::int64_t>(4 * p.dim, std::llround(t.density * volume(t.lo, t.hi)));
    std::vector<std::pair<point, double>> s(static_cast<std::size_t>(samples));
    for (std::int64_t i = 0; i < samples; ++i) {
      point x{};
      for (int j = 0; j < p.dim; ++j)
        x[j] = t.lo[j] + (t.hi[j] - t.lo[j]) * random.unit(static_cast<std::uint64_t>(i * max_dim + j));
      s[static_cast<std::size_t>(i)] = {x, f(x)};
    }
    std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    // Start points: among the best tenth, no lower sample within the
    // critical distance (a simple form of the clustering of seed 001's [11]).
    const double radius = 0.5 * std::pow(volume(t.lo, t.hi) / static_cast<double>(samples), 1.0 / p.dim);
    const std::size_t candidates = std::max<std::size_t>(1, s.size() / 10);
    int starts = 0;
    for (std::size_t i = 0; i < candidates && starts < 3; ++i) {
      bool lowest_nearby = true;
      for (std::size_t k = 0; k < i && lowest_nearby; ++k) lowest_nearby = distance(s[k].first, s[i].first) > radius;
      if (!lowest_nearby) continue;
      task_payload m{};
      m.what = kind::minimize;
      m.id = t.id;
      m.start = s[i].first;
      pool.put(m, level, minimize_priority);
      ++starts;
    }
    // Adaptive heuristics: productive regions split, others thin out or wait.
    double best_so_far;
    {
      std::lock_guard guard(lock);
      evaluations += samples;
      ++subregion_tasks;
      best_so_far = best_sample = std::min(best_sample, s.front().second);
    }
    if (level + 1 >= levels) return;
    const double spread = std::max(1e-12, std::abs(best_so_far));
    const double gap = (s.front().second - best_so_far) / spread;
    task_payload child = t;
    if (gap < 0.25) {  // productive: split along the longest side
      int longest = 0;
      for (int j = 1; j < p.dim; ++j)
        if ((t.hi[j] - t.lo[j]) / (p.hi[j] - p.lo[j]) > (t.hi[longest] - t.lo[longest]) / (p.hi[longest] - p.lo[longest]))
          longest = j;
      const double middle = 0.5 * (t.lo[longest] + t.hi[longest]);
      child.hi[longest] = middle;
      child.id = 2 * t.id;
      pool.put(child, level + 1, subregion_priority);
      child = t;
      child.lo[longest] = middle;
      child.id = 2 * t.id + 1;
      pool.put(child, level + 1, subregion_priority);
    } else if (gap < 1) {  // less productive: fewer samples next time
      child.density = t.density / 2;
      pool.put(child, level + 1, subregion_priority);
    } else {  // unproductive: wait one level
      child.skip = 1;
      pool.put(child, level + 1, subregion_priority);
    }
  }

  // Nelder-Mead inside the domain from the start point.
  void minimize(const task_payload& t) {
    const int n = p.dim;
    std::vector<point> simplex(static_cast<std::size_t>(n + 1), t.start);
    std::vector<double> value(static_cast<std::size_t>(n + 1));
    for (int j = 0; j < n; ++j) simplex[static_cast<std::size_t>(j + 1)][j] += 0.05 * (p.hi[j] - p.lo[j]);
    std::int64_t used = 0;
    const auto eval = [&](const point& x) {
      ++used;
      return f(x);
    };
    for (std::size_t i = 0; i < simplex.size(); ++i) {
      simplex[i] = clamp(simplex[i]);
      value[i] = eval(simplex[i]);
    }
    std::vector<std::size_t> order(simplex.size());
    for (int iteration = 0; iteration < 400 * n; ++iteration) {
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return value[a] < value[b]; });
      const std::size_t best = order.front(), worst = order.back(), second = order[order.size() - 2];
      if (std::abs(value[worst] - value[best]) <= 1e-12 * (1 + std::abs(value[best])) &&
          distance(simplex[worst], simplex[best]) < 1e-9)
        break;
      point centre{};
      for (std::size_t i : order)
        if (i != worst)
          for (int j = 0; j < n; ++j) centre[j] += simplex[i][j] / n;
      const auto along = [&](double factor) {
        point x{};
        for (int j = 0; j < n; ++j) x[j] = centre[j] + factor * (simplex[worst][j] - centre[j]);
        return clamp(x);
      };
      const point reflected = along(-1);
      const double fr = eval(reflected);
      if (fr < value[best]) {
        const point expanded = along(-2);
        const double fe = eval(expanded);
        if (fe < fr) simplex[worst] = expanded, value[worst] = fe;
        else simplex[worst] = reflected, value[worst] = fr;
      } else if (fr < value[second]) {
        simplex[worst] = reflected, value[worst] = fr;
      } else {
        const point contracted = along(0.5);
        const double fc = eval(contracted);
        if (fc < value[worst]) {
          simplex[worst] = contracted, value[worst] = fc;
        } else {  // shrink towards the best
          for (std::size_t i = 0; i < simplex.size(); ++i) {
            if (i == best) continue;
            for (int j = 0; j < n; ++j) simplex[i][j] = simplex[best][j] + 0.5 * (simplex[i][j] - simplex[best][j]);
            value[i] = eval(simplex[i]);
          }
        }
      }
    }
    const std::size_t best = static_cast<std::size_t>(std::min_element(value.begin(), value.end()) - value.begin());
    std::lock_guard guard(lock);
    evaluations += used;
    ++local_searches;
    for (const auto& known : minimizers)
      if (distance(known.first, simplex[best]) < 1e-4) return;
    minimizers.emplace_back(simplex[best], value[best]);
  }
};


inline const problem* find_problem(const std::string& name) {
  for (const problem& p : problems)
    if (name == p.name) return &p;
  return nullptr;
}

inline std::vector<std::string> problem_names() {
  std::vector<std::string> names;
  for (const problem& p : problems) names.emplace_back(p.name);
  return names;
}

// Level 0: the domain cut into `regions` slabs along its first side.
template <typename Pool>
void put_initial_regions(Pool& pool, const problem& p, std::int64_t regions, double density) {
  for (std::int64_t r = 0; r < regions; ++r) {
    task_payload t{};
    t.what = kind::subregion;
    t.id = r + 1;
    t.density = density;
    for (int j = 0; j < p.dim; ++j) t.lo[j] = p.lo[j], t.hi[j] = p.hi[j];
    const double width = (p.hi[0] - p.lo[0]) / static_cast<double>(regions);
    t.lo[0] = p.lo[0] + width * static_cast<double>(r);
    t.hi[0] = r + 1 == regions ? p.hi[0] : t.lo[0] + width;
    pool.put(t, 0, subregion_priority);
  }
}

inline double best_minimum(const search& s) {
  double best = INFINITY;
  for (const auto& m : s.minimizers) best = std::min(best, m.second);
  return best;
}

// Whether `best` is the known global minimum, to 1e-5 relative.
inline bool is_known_minimum(const problem& p, double best) {
  return std::abs(best - p.known_minimum) <= 1e-5 * std::max(1.0, std::abs(p.known_minimum));
}

}  // namespace global_opt

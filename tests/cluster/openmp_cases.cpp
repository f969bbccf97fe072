// C++ programs for cluster mode: user-defined reductions (std::complex, a
// struct), containers filled and grown inside loops, objects with virtual
// functions. Each case checks itself against a serial computation and
// prints its result: `openmp_cases_cpp CASE`.
#include <omp.h>

#include <complex>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

int check(const char* name, bool ok) {
  std::printf("%s: %s\n", name, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}

double value(int i) { return static_cast<double>((i * 37) % 1000) / 8.0; }  // exact in binary

constexpr int n = 20000;

int complex_sum() {
  std::complex<double> sum{0, 0};
#pragma omp declare reduction(csum : std::complex<double> : omp_out += omp_in) initializer(omp_priv = 0)
#pragma omp parallel for reduction(csum : sum)
  for (int i = 0; i < n; ++i) sum += std::complex<double>(value(i), -value(i) / 2);
  std::complex<double> e{0, 0};
  for (int i = 0; i < n; ++i) e += std::complex<double>(value(i), -value(i) / 2);
  std::printf("complex_sum %.3f %.3f\n", sum.real(), sum.imag());
  return check("complex_sum", sum == e);
}

struct stats {
  double low = 1e300, high = -1e300, total = 0;
  long count = 0;
};
void merge(stats& out, const stats& in) {
  out.low = std::min(out.low, in.low);
  out.high = std::max(out.high, in.high);
  out.total += in.total;
  out.count += in.count;
}
#pragma omp declare reduction(merge_stats : stats : merge(omp_out, omp_in)) initializer(omp_priv = stats())

int struct_reduction() {
  stats s;
#pragma omp parallel for schedule(dynamic, 64) reduction(merge_stats : s)
  for (int i = 0; i < n; ++i) {
    const double v = value(i) - 40;
    s.low = std::min(s.low, v);
    s.high = std::max(s.high, v);
    s.total += v;
    ++s.count;
  }
  stats e;
  for (int i = 0; i < n; ++i) merge(e, {value(i) - 40, value(i) - 40, value(i) - 40, 1});
  std::printf("struct_reduction %.3f %.3f %.3f %ld\n", s.low, s.high, s.total, s.count);
  return check("struct_reduction", s.low == e.low && s.high == e.high && s.total == e.total && s.count == e.count);
}

int vectors() {
  std::vector<double> out(n);
  std::vector<std::vector<int>> rows(n);
#pragma omp parallel for schedule(guided)
  for (int i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] = value(i) * 2;
    rows[static_cast<std::size_t>(i)].resize(static_cast<std::size_t>(1 + i % 7), i);  // grows inside the loop
    std::string label = "row " + std::to_string(i) + " of a vector built inside";  // allocated and freed inside
    rows[static_cast<std::size_t>(i)].back() += static_cast<int>(label.size() > 20);
  }
  double s = 0, e = 0;
  long cells = 0;
  for (int i = 0; i < n; ++i) {
    s += out[static_cast<std::size_t>(i)];
    e += value(i) * 2;
    for (int v : rows[static_cast<std::size_t>(i)]) cells += v;
  }
  long e_cells = 0;
  for (int i = 0; i < n; ++i) e_cells += static_cast<long>(i) * (1 + i % 7) + 1;
  std::printf("vectors %.3f %ld\n", s, cells);
  return check("vectors", s == e && cells == e_cells);
}

struct shape {
  virtual ~shape() = default;
  virtual double area() const = 0;
  double cached = 0;
};
struct square : shape {
  double side;
  explicit square(double s) : side(s) {}
  double area() const override { return side * side; }
};
struct circle : shape {
  double radius;
  explicit circle(double r) : radius(r) {}
  double area() const override { return 3 * radius * radius; }
};

int objects() {
  std::vector<std::unique_ptr<shape>> shapes;
  for (int i = 0; i < n; ++i) {
    if (i % 2) shapes.push_back(std::make_unique<square>(value(i)));
    else shapes.push_back(std::make_unique<circle>(value(i)));
  }
#pragma omp parallel for
  for (int i = 0; i < n; ++i) shapes[static_cast<std::size_t>(i)]->cached = shapes[static_cast<std::size_t>(i)]->area();
  double s = 0, e = 0;
  for (int i = 0; i < n; ++i) {
    s += shapes[static_cast<std::size_t>(i)]->cached;
    e += i % 2 ? value(i) * value(i) : 3 * value(i) * value(i);
  }
  std::printf("objects %.3f\n", s);
  return check("objects", s == e);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "all";
  struct {
    const char* name;
    int (*run)();
  } cases[] = {{"complex_sum", complex_sum}, {"struct_reduction", struct_reduction}, {"vectors", vectors},
               {"objects", objects}};
  int failed = 0, ran = 0;
  for (const auto& c : cases)
    if (which == "all" || which == c.name) {
      failed += c.run();
      ++ran;
    }
  if (ran == 0) {
    std::fprintf(stderr, "openmp_cases_cpp: no case '%s'\n", which.c_str());
    return 2;
  }
  return failed ? 1 : 0;
}

#include "svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "selfsched/machine/files.hpp"

namespace selfsched::tools {

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string number(double x, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, x);
  return text;
}

void svg::rect(double x, double y, double w, double h, std::string_view fill, std::string_view css_class,
               std::string_view title) {
  body_ << "<rect";
  if (!css_class.empty()) body_ << " class=\"" << css_class << '"';
  body_ << " x=\"" << number(x) << "\" y=\"" << number(y) << "\" width=\"" << number(std::max(w, 0.5))
        << "\" height=\"" << number(h) << "\" fill=\"" << fill << '"';
  if (title.empty()) body_ << "/>\n";
  else body_ << "><title>" << escape(title) << "</title></rect>\n";
}

void svg::line(double x1, double y1, double x2, double y2, std::string_view stroke) {
  body_ << "<line x1=\"" << number(x1) << "\" y1=\"" << number(y1) << "\" x2=\"" << number(x2) << "\" y2=\""
        << number(y2) << "\" stroke=\"" << stroke << "\"/>\n";
}

void svg::polyline(const std::string& points, std::string_view stroke, std::string_view title) {
  body_ << "<polyline points=\"" << points << "\" fill=\"none\" stroke=\"" << stroke << "\" stroke-width=\"2\"";
  if (title.empty()) body_ << "/>\n";
  else body_ << "><title>" << escape(title) << "</title></polyline>\n";
}

void svg::circle(double x, double y, double r, std::string_view fill, std::string_view title) {
  body_ << "<circle cx=\"" << number(x) << "\" cy=\"" << number(y) << "\" r=\"" << number(r) << "\" fill=\"" << fill
        << '"';
  if (title.empty()) body_ << "/>\n";
  else body_ << "><title>" << escape(title) << "</title></circle>\n";
}

void svg::text(double x, double y, std::string_view s, std::string_view anchor, int size, std::string_view fill) {
  body_ << "<text x=\"" << number(x) << "\" y=\"" << number(y) << "\" text-anchor=\"" << anchor
        << "\" font-size=\"" << size << "\" fill=\"" << fill << "\">" << escape(s) << "</text>\n";
}

bool svg::save(const std::filesystem::path& path, std::string& why) const {
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << number(width_, 0) << "\" height=\""
      << number(height_, 0) << "\" viewBox=\"0 0 " << number(width_, 0) << ' ' << number(height_, 0)
      << "\" font-family=\"sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << body_.str() << "</svg>\n";
  return selfsched::omp::write_file_atomically(path.string(), out.str(), 0644, why);
}

double tick_step(double span) {
  if (span <= 0) return 1;
  const double rough = span / 8;
  const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= rough) return m * magnitude;
  return 10 * magnitude;
}

void time_axis(svg& chart, double left, double right, double y, double span) {
  chart.line(left, y, right, y, "#444");
  const double step = tick_step(span);
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step))));
  for (double t = 0; t <= span * (1 + 1e-9); t += step) {
    const double x = left + (right - left) * t / span;
    chart.line(x, y, x, y + 5, "#444");
    chart.text(x, y + 18, number(t, decimals), "middle", 11);
  }
  chart.text((left + right) / 2, y + 34, "time (s)", "middle", 12);
}

std::string row_colour(int row, bool alternate) {
  const double hue = std::fmod(row * 137.508, 360.0);
  return "hsl(" + number(hue, 0) + "," + (alternate ? "55%,62%)" : "60%,45%)");
}

}  // namespace selfsched::tools

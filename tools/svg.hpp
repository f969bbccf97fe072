// SVG charts written by hand for the tools (selfsched-report, selfsched-sim):
// rectangles, lines and text, with hover titles; no plotting dependency.
#pragma once

#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>

namespace selfsched::tools {

std::string escape(std::string_view text);
std::string number(double x, int decimals = 2);

class svg {
 public:
  svg(double width, double height) : width_(width), height_(height) {}

  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view css_class = {},
            std::string_view title = {});
  void line(double x1, double y1, double x2, double y2, std::string_view stroke);
  // A polyline through (x, y) points, with a hover title.
  void polyline(const std::string& points, std::string_view stroke, std::string_view title = {});
  void circle(double x, double y, double r, std::string_view fill, std::string_view title = {});
  void text(double x, double y, std::string_view s, std::string_view anchor = "start", int size = 12,
            std::string_view fill = "#222");
  // Writes the chart to `path` through selfsched's one writer (files.hpp):
  // a file replaced whole, a FIFO or /dev/stdout written in place, never a
  // wait for a reader that is not there. false and why otherwise.
  bool save(const std::filesystem::path& path, std::string& why) const;

 private:
  double width_, height_;
  std::ostringstream body_;
};

// Tick step of 1, 2 or 5 x 10^k giving at most about 8 ticks up to `span`.
double tick_step(double span);
// A time axis from 0 to `span` seconds under the plot area.
void time_axis(svg& chart, double left, double right, double y, double span);
// Distinct hues per row; alternate shades within a row keep neighbours apart.
std::string row_colour(int row, bool alternate);

}  // namespace selfsched::tools

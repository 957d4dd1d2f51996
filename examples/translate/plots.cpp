// examples/translate/plots.cpp — see plots.h. Plain SVG text: no library needed to write it,
// any browser shows it.
#include "plots.h"

#include <algorithm>
#include <sstream>

#include "checkpoint.h"

namespace atencion::translate {
namespace {

std::string escape_xml(const std::string& text) {
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

}  // namespace

void write_line_plot_svg(const std::string& path, const std::string& title,
                         const std::string& x_label, const std::vector<Series>& series) {
  constexpr int width = 640, panel = 200, left = 70, right = 20, top = 40, gap = 50;
  const int height = top + static_cast<int>(series.size()) * (panel + gap);
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"10\" y=\"20\" font-size=\"14\">" << escape_xml(title) << "</text>\n";
  for (size_t s = 0; s < series.size(); ++s) {
    const Series& line = series[s];
    const int y0 = top + static_cast<int>(s) * (panel + gap);
    if (line.x.empty()) continue;
    const auto [x_min, x_max] = std::minmax_element(line.x.begin(), line.x.end());
    const auto [y_min, y_max] = std::minmax_element(line.y.begin(), line.y.end());
    const double x_span = std::max(1e-12, *x_max - *x_min), y_span = std::max(1e-12, *y_max - *y_min);
    auto px = [&](double x) { return left + (x - *x_min) / x_span * (width - left - right); };
    auto py = [&](double y) { return y0 + panel - (y - *y_min) / y_span * panel; };
    svg << "<rect x=\"" << left << "\" y=\"" << y0 << "\" width=\"" << width - left - right
        << "\" height=\"" << panel << "\" fill=\"none\" stroke=\"#888\"/>\n"
        << "<text x=\"" << left << "\" y=\"" << y0 - 6 << "\">" << escape_xml(line.name)
        << "</text>\n"
        << "<text x=\"" << left - 6 << "\" y=\"" << y0 + 10 << "\" text-anchor=\"end\">"
        << *y_max << "</text>\n"
        << "<text x=\"" << left - 6 << "\" y=\"" << y0 + panel << "\" text-anchor=\"end\">"
        << *y_min << "</text>\n"
        << "<text x=\"" << left << "\" y=\"" << y0 + panel + 16 << "\">" << *x_min << "</text>\n"
        << "<text x=\"" << width - right << "\" y=\"" << y0 + panel + 16
        << "\" text-anchor=\"end\">" << *x_max << " " << escape_xml(x_label) << "</text>\n"
        << "<polyline fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"1.5\" points=\"";
    for (size_t i = 0; i < line.x.size(); ++i) svg << px(line.x[i]) << "," << py(line.y[i]) << " ";
    svg << "\"/>\n";
  }
  svg << "</svg>\n";
  write_file_atomically(path, svg.str());
}

}  // namespace atencion::translate

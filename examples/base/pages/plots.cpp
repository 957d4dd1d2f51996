// examples/base/pages/plots.cpp — see plots.h. Plain SVG text: no library needed to write it,
// any browser shows it.
#include "base/pages/plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "base/io/file_checks.h"
#include "base/pages/xml_escape.h"

namespace atencion::examples {
namespace {

// About `count` ticks over [low, high], at 1, 2 or 5 times a power of ten; the axis then runs
// from the first tick to the last.
struct Axis {
  double low, high, step;
  std::vector<double> ticks;
};
Axis nice_axis(double low, double high, int count) {
  if (!(high > low)) {
    const double pad = std::abs(low) > 0 ? std::abs(low) * 0.1 : 1.0;
    low -= pad;
    high += pad;
  }
  const double rough = (high - low) / count, power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = 10 * power;
  for (double factor : {1.0, 2.0, 5.0})
    if (factor * power >= rough) {
      step = factor * power;
      break;
    }
  Axis axis{std::floor(low / step + 1e-9) * step, std::ceil(high / step - 1e-9) * step, step, {}};
  for (double v = axis.low; v <= axis.high + step / 2; v += step)
    axis.ticks.push_back(std::abs(v) < step * 1e-6 ? 0.0 : v);
  return axis;
}

std::string tick_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

// The layout of the figure: its width, each chart's panel height, the margins, and the lines'
// colours in turn.
constexpr int kWidth = 640, kPanel = 200, kLeft = 84, kRight = 24, kTop = 40, kPanelGap = 86;
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

// One chart whose panel starts at height y0: title, legend, grid with ticks, frame, axis labels,
// and each line (with a dot per point when it has few).
void draw_chart(std::ostringstream& svg, const explorer::Chart& chart, int y0) {
  const int plot_width = kWidth - kLeft - kRight;
  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min, y_min = x_min,
         y_max = -x_min;
  for (const auto& line : chart.lines) {
    for (double v : line.x) x_min = std::min(x_min, v), x_max = std::max(x_max, v);
    for (double v : line.y) y_min = std::min(y_min, v), y_max = std::max(y_max, v);
  }
  if (!std::isfinite(x_min)) return;  // no points at all
  const Axis x_axis = nice_axis(x_min, x_max, 6), y_axis = nice_axis(y_min, y_max, 5);
  auto px = [&](double x) {
    return kLeft + (x - x_axis.low) / (x_axis.high - x_axis.low) * plot_width;
  };
  auto py = [&](double y) {
    return y0 + kPanel - (y - y_axis.low) / (y_axis.high - y_axis.low) * kPanel;
  };
  svg << "<text x=\"" << kLeft << "\" y=\"" << y0 - 22 << "\" font-size=\"13\">"
      << xml_escape(chart.title) << "</text>\n";
  int legend_x = kLeft;
  for (size_t l = 0; l < chart.lines.size(); ++l) {
    svg << "<line x1=\"" << legend_x << "\" y1=\"" << y0 - 10 << "\" x2=\"" << legend_x + 16
        << "\" y2=\"" << y0 - 10 << "\" stroke=\"" << kColours[l % 4] << "\" stroke-width=\"2\"/>"
        << "<text x=\"" << legend_x + 20 << "\" y=\"" << y0 - 6 << "\">"
        << xml_escape(chart.lines[l].name) << "</text>\n";
    legend_x += 36 + 7 * static_cast<int>(chart.lines[l].name.size());
  }
  for (double v : y_axis.ticks)
    svg << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + plot_width << "\" y1=\"" << py(v)
        << "\" y2=\"" << py(v) << "\" stroke=\"#e4e7eb\"/><text x=\"" << kLeft - 6 << "\" y=\""
        << py(v) + 4 << "\" text-anchor=\"end\">" << tick_text(v) << "</text>\n";
  for (double v : x_axis.ticks)
    svg << "<line x1=\"" << px(v) << "\" x2=\"" << px(v) << "\" y1=\"" << y0 << "\" y2=\""
        << y0 + kPanel << "\" stroke=\"#e4e7eb\"/><text x=\"" << px(v) << "\" y=\""
        << y0 + kPanel + 16 << "\" text-anchor=\"middle\">" << tick_text(v) << "</text>\n";
  svg << "<rect x=\"" << kLeft << "\" y=\"" << y0 << "\" width=\"" << plot_width
      << "\" height=\"" << kPanel << "\" fill=\"none\" stroke=\"#888\"/>\n"
      << "<text x=\"" << kLeft + plot_width / 2 << "\" y=\"" << y0 + kPanel + 34
      << "\" text-anchor=\"middle\">" << xml_escape(chart.x_label) << "</text>\n"
      << "<text text-anchor=\"middle\" transform=\"translate(14," << y0 + kPanel / 2
      << ") rotate(-90)\">" << xml_escape(chart.y_label) << "</text>\n";
  for (size_t l = 0; l < chart.lines.size(); ++l) {
    const explorer::Line& line = chart.lines[l];
    svg << "<polyline fill=\"none\" stroke=\"" << kColours[l % 4]
        << "\" stroke-width=\"1.5\" points=\"";
    for (size_t i = 0; i < line.x.size(); ++i)
      svg << px(line.x[i]) << "," << py(line.y[i]) << " ";
    svg << "\"/>\n";
    if (line.x.size() <= 40)  // few points (the dev loss): mark each one
      for (size_t i = 0; i < line.x.size(); ++i)
        svg << "<circle cx=\"" << px(line.x[i]) << "\" cy=\"" << py(line.y[i])
            << "\" r=\"2.5\" fill=\"" << kColours[l % 4] << "\"/>\n";
  }
}

}  // namespace

void write_line_plot_svg(const std::string& path, const std::string& title,
                         const std::vector<explorer::Chart>& charts) {
  const int height = kTop + static_cast<int>(charts.size()) * (kPanel + kPanelGap);
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\""
      << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"10\" y=\"20\" font-size=\"14\">" << xml_escape(title) << "</text>\n";
  for (size_t index = 0; index < charts.size(); ++index)
    draw_chart(svg, charts[index], kTop + static_cast<int>(index) * (kPanel + kPanelGap) + 20);
  svg << "</svg>\n";
  write_file_atomically(path, svg.str());
}

}  // namespace atencion::examples

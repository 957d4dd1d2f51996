// examples/base/pages/heatmap_svg.cpp — a small SVG writer for attention heat maps.
#include "base/pages/heatmap_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "base/io/file_checks.h"
#include "base/pages/xml_escape.h"

namespace atencion::examples {

namespace {

constexpr int kCell = 22;          // pixels per cell
constexpr int kRowLabels = 90;     // room for the query tokens on the left
constexpr int kColumnLabels = 70;  // room for the key tokens on top (written at 45°)
constexpr int kTitle = 24;
constexpr int kGap = 28;
constexpr int kScale = 34;          // the colour bar under each map, with its range
constexpr int kScaleSteps = 16;

struct Range {
  double low, high;
};

// The finite values' range, from 0 when none is negative (weights: white means 0).
Range value_range(const std::vector<double>& values) {
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (double v : values) {
    if (std::isfinite(v)) {
      low = std::min(low, v);
      high = std::max(high, v);
    }
  }
  if (!(low < 0)) low = 0;
  if (!(high > low)) high = low + 1;
  return {low, high};
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// White (t = 0) to dark blue (t = 1).
std::string colour(double t) {
  const double r = 255 + t * (8 - 255), g = 255 + t * (48 - 255), b = 255 + t * (107 - 255);
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", static_cast<int>(r), static_cast<int>(g),
                static_cast<int>(b));
  return text;
}

}  // namespace

namespace {

// One map's panel: its title, the key tokens across, the query tokens down, a cell per value
// (white to dark blue over [low, high], grey where masked), and the colour bar under it.
void draw_panel(std::ostringstream& svg, const HeatMap& map, Range range, int left, int top,
                bool show_values) {
  const std::vector<double> values = map.values.contiguous().to_vector();
  const int64_t rows = map.values.size(0), columns = map.values.size(1);
  const auto [low, high] = range;
  svg << "<text x=\"" << left << "\" y=\"" << top - kColumnLabels - 6 << "\" font-size=\"13\">"
      << xml_escape(map.title) << "</text>\n";
  for (int64_t c = 0; c < columns; ++c) {
    const int x = left + static_cast<int>(c) * kCell + kCell / 2;
    svg << "<text transform=\"translate(" << x << "," << top - 4 << ") rotate(-45)\">"
        << xml_escape(map.column_tokens.at(c)) << "</text>\n";
  }
  for (int64_t r = 0; r < rows; ++r) {
    const int y = top + static_cast<int>(r) * kCell;
    svg << "<text x=\"" << left - 4 << "\" y=\"" << y + kCell * 2 / 3 << "\" text-anchor=\"end\">"
        << xml_escape(map.row_tokens.at(r)) << "</text>\n";
    for (int64_t c = 0; c < columns; ++c) {
      const double v = values[r * columns + c];
      const int x = left + static_cast<int>(c) * kCell;
      const double t = std::isfinite(v) ? (v - low) / (high - low) : 0;
      svg << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCell << "\" height=\""
          << kCell << "\" fill=\"" << (std::isfinite(v) ? colour(t) : std::string("#bbbbbb"))
          << "\"/>";
      if (show_values && std::isfinite(v)) {
        svg << "<text x=\"" << x + kCell / 2 << "\" y=\"" << y + kCell * 2 / 3
            << "\" text-anchor=\"middle\" font-size=\"8\" fill=\""
            << (t > 0.5 ? "white" : "black") << "\">" << static_cast<int>(std::lround(v * 100))
            << "</text>";
      }
      svg << "\n";
    }
  }
  // The colour bar: low on the left, high on the right.
  const int bar_top = top + static_cast<int>(rows) * kCell + 8;
  const int bar_width = std::max(static_cast<int>(columns) * kCell, 96);
  for (int step = 0; step < kScaleSteps; ++step)
    svg << "<rect x=\"" << left + step * bar_width / kScaleSteps << "\" y=\"" << bar_top
        << "\" width=\"" << bar_width / kScaleSteps + 1 << "\" height=\"8\" fill=\""
        << colour(static_cast<double>(step) / (kScaleSteps - 1)) << "\"/>";
  svg << "\n<text x=\"" << left << "\" y=\"" << bar_top + 20 << "\">" << number(low)
      << "</text><text x=\"" << left + bar_width << "\" y=\"" << bar_top + 20
      << "\" text-anchor=\"end\">" << number(high) << "</text>\n";
}

}  // namespace

void write_heatmaps_svg(const std::string& path, const std::string& caption,
                        const std::vector<HeatMap>& maps, int per_row, bool show_values) {
  int64_t max_rows = 0, max_columns = 0;
  std::vector<double> all_values;
  for (const auto& map : maps) {
    max_rows = std::max(max_rows, map.values.size(0));
    max_columns = std::max(max_columns, map.values.size(1));
    const std::vector<double> values = map.values.contiguous().to_vector();
    all_values.insert(all_values.end(), values.begin(), values.end());
  }
  // Maps of weights (nothing negative) share one scale, so that shades compare across heads;
  // a figure with scores in it (negative values) gives each map its own.
  const Range figure_range = value_range(all_values);
  const bool shared_scale = figure_range.low == 0;
  const std::string scale_note =
      shared_scale ? "colour: one scale for all maps, white = 0 to dark blue = " +
                         number(figure_range.high) + " (the largest value shown)"
                   : "colour: each map on its own scale, white = its smallest value to dark "
                     "blue = its largest (the bar under it); grey = masked (-inf)";
  const int panel_width = kRowLabels + static_cast<int>(max_columns) * kCell + kGap;
  const int panel_height =
      kTitle + kColumnLabels + static_cast<int>(max_rows) * kCell + kScale + kGap;
  const int lines = (static_cast<int>(maps.size()) + per_row - 1) / per_row;
  const int width = std::max(std::min<int>(per_row, static_cast<int>(maps.size())) * panel_width,
                             16 + 7 * static_cast<int>(std::max(caption.size(),
                                                                scale_note.size() * 11 / 14)));
  const int height = 2 * kTitle + lines * panel_height;

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"8\" y=\"17\" font-size=\"14\">" << xml_escape(caption) << "</text>\n"
      << "<text x=\"8\" y=\"" << kTitle + 13 << "\">" << xml_escape(scale_note) << "</text>\n";
  for (std::size_t index = 0; index < maps.size(); ++index) {
    const HeatMap& map = maps[index];
    const Range range =
        shared_scale ? figure_range : value_range(map.values.contiguous().to_vector());
    const int left = static_cast<int>(index % per_row) * panel_width + kRowLabels;
    const int top =
        2 * kTitle + static_cast<int>(index / per_row) * panel_height + kTitle + kColumnLabels;
    draw_panel(svg, map, range, left, top, show_values);
  }
  svg << "</svg>\n";

  try {
    write_file_atomically(path, svg.str());  // a temporary name, then a rename: never a link
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(std::string("write_heatmaps_svg: ") + error.what());
  }
}

}  // namespace atencion::examples

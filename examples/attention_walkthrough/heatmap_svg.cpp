// examples/attention_walkthrough/heatmap_svg.cpp — a small SVG writer for attention heat maps.
#include "heatmap_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace walkthrough {

namespace {

constexpr int kCell = 22;          // pixels per cell
constexpr int kRowLabels = 90;     // room for the query tokens on the left
constexpr int kColumnLabels = 70;  // room for the key tokens on top (written at 45°)
constexpr int kTitle = 24;
constexpr int kGap = 28;

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
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

void write_heatmaps_svg(const std::string& path, const std::string& caption,
                        const std::vector<HeatMap>& maps, int per_row, bool show_values) {
  int64_t max_rows = 0, max_columns = 0;
  for (const auto& map : maps) {
    max_rows = std::max(max_rows, map.values.size(0));
    max_columns = std::max(max_columns, map.values.size(1));
  }
  const int panel_width = kRowLabels + static_cast<int>(max_columns) * kCell + kGap;
  const int panel_height = kTitle + kColumnLabels + static_cast<int>(max_rows) * kCell + kGap;
  const int lines = (static_cast<int>(maps.size()) + per_row - 1) / per_row;
  const int width = std::max(std::min<int>(per_row, static_cast<int>(maps.size())) * panel_width,
                             16 + 7 * static_cast<int>(caption.size()));
  const int height = kTitle + lines * panel_height;

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"8\" y=\"17\" font-size=\"14\">" << escape(caption) << "</text>\n";
  for (std::size_t index = 0; index < maps.size(); ++index) {
    const HeatMap& map = maps[index];
    const std::vector<double> values = map.values.contiguous().to_vector();
    const int64_t rows = map.values.size(0), columns = map.values.size(1);
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (double v : values) {
      if (std::isfinite(v)) {
        low = std::min(low, v);
        high = std::max(high, v);
      }
    }
    if (low > 0) low = 0;  // weights: white means 0
    if (!(high > low)) high = low + 1;
    const int left = static_cast<int>(index % per_row) * panel_width + kRowLabels;
    const int top =
        kTitle + static_cast<int>(index / per_row) * panel_height + kTitle + kColumnLabels;
    svg << "<text x=\"" << left << "\" y=\"" << top - kColumnLabels - 6 << "\" font-size=\"13\">"
        << escape(map.title) << "</text>\n";
    for (int64_t c = 0; c < columns; ++c) {
      const int x = left + static_cast<int>(c) * kCell + kCell / 2;
      svg << "<text transform=\"translate(" << x << "," << top - 4 << ") rotate(-45)\">"
          << escape(map.column_tokens.at(c)) << "</text>\n";
    }
    for (int64_t r = 0; r < rows; ++r) {
      const int y = top + static_cast<int>(r) * kCell;
      svg << "<text x=\"" << left - 4 << "\" y=\"" << y + kCell * 2 / 3 << "\" text-anchor=\"end\">"
          << escape(map.row_tokens.at(r)) << "</text>\n";
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
  }
  svg << "</svg>\n";

  std::ofstream file(path);
  file << svg.str();
  if (!file) throw std::runtime_error("write_heatmaps_svg: cannot write " + path);
}

}  // namespace walkthrough

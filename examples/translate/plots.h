// examples/translate/plots.h — pictures a learner opens in a browser: SVG heat maps of attention
// weights with the tokens on both axes, and line plots of a training run.
#pragma once

#include <string>
#include <vector>

namespace atencion::translate {

// weights[r][c] in [0, 1] drawn as a grid (darker = more attention); row r is query
// row_labels[r], column c is key column_labels[c]. Written through a temporary file.
void write_heatmap_svg(const std::string& path, const std::string& title,
                       const std::vector<std::vector<double>>& weights,
                       const std::vector<std::string>& row_labels,
                       const std::vector<std::string>& column_labels);

struct Series {
  std::string name;
  std::vector<double> x, y;
};
// Each series in its own panel, stacked, sharing the x axis label.
void write_line_plot_svg(const std::string& path, const std::string& title,
                         const std::string& x_label, const std::vector<Series>& series);

}  // namespace atencion::translate

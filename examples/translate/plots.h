// examples/translate/plots.h — line plots of a training run (loss, learning rate) as SVG.
// (Attention heat maps come from the walk-through's writer: attention_walkthrough/heatmap_svg.h.)
#pragma once

#include <string>
#include <vector>

namespace atencion::translate {

struct Series {
  std::string name;
  std::vector<double> x, y;
};
// Each series in its own panel, stacked, sharing the x axis label.
void write_line_plot_svg(const std::string& path, const std::string& title,
                         const std::string& x_label, const std::vector<Series>& series);

}  // namespace atencion::translate

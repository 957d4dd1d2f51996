// examples/base/pages/plots.h — line plots of a training run (loss, learning rate) as SVG.
// (Attention heat maps come from the walk-through's writer: base/pages/heatmap_svg.h;
// the same charts drawn interactively: examples/base/pages/explorer.h.)
#pragma once

#include <string>
#include <vector>

#include "base/pages/explorer.h"

namespace atencion::examples {

// Each chart in its own panel, stacked: its lines share the axes, with ticks at 1, 2 or 5
// times a power of ten on both, the axis labels, and a legend naming the lines.
void write_line_plot_svg(const std::string& path, const std::string& title,
                         const std::vector<explorer::Chart>& charts);

}  // namespace atencion::examples

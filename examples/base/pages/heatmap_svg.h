// examples/base/pages/heatmap_svg.h — attention matrices as SVG heat maps, with the
// tokens on both axes: rows are the queries (who looks), columns the keys (who is looked at).
#pragma once

#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace atencion::examples {

struct HeatMap {
  std::string title;                       // "head 3", "softmax(scores)", ...
  atencion::Tensor values;                 // [rows, columns]
  std::vector<std::string> row_tokens;     // one per row (the queries)
  std::vector<std::string> column_tokens;  // one per column (the keys)
};

// Writes the maps side by side, `per_row` to a line, under `caption` and a line that states the
// colour scale. When no value is negative (attention weights) all maps share one scale, white
// = 0 to dark blue = the largest value of the figure, so shades compare across heads; otherwise
// (scores) each map runs from its smallest to its largest value. Under each map a colour bar
// gives its range; a -inf cell (masked) is grey.
// When `show_values`, each cell also prints its value in percent (for weights in [0, 1]).
// Throws std::runtime_error if the file cannot be written.
void write_heatmaps_svg(const std::string& path, const std::string& caption,
                        const std::vector<HeatMap>& maps, int per_row, bool show_values);

}  // namespace atencion::examples

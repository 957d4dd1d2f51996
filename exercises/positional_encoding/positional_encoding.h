// exercises/positional_encoding/positional_encoding.h — exercise "positional_encoding"
// (docs/exercises.md#positional_encoding). Lesson: docs/10-transformer.md#positional-encoding
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh positional_encoding path/to/your_file.cpp
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace atencion::exercise {

// The paper's table PE, Float64 [max_len, d_model] (d_model even):
//   PE[pos, 2i]     = sin(pos / 10000^(2i / d_model))
//   PE[pos, 2i + 1] = cos(pos / 10000^(2i / d_model))
Tensor positional_encoding(int64_t max_len, int64_t d_model);

}  // namespace atencion::exercise

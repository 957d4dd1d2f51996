// exercises/positional_encoding/starter.cpp — copy me to a file of your own, write the table,
// and run:  tools/exercise.sh positional_encoding your_file.cpp
//
// Tensor::zeros({max_len, d_model}, DType::Float64), then table.set({pos, dim}, value) or
// table.data<double>()[pos * d_model + dim]. Careful: a sine and its cosine share ONE
// wavelength, the one of their pair i (dims 2i and 2i + 1).
#include <stdexcept>

#include "exercises/positional_encoding/positional_encoding.h"

namespace atencion::exercise {

Tensor positional_encoding(int64_t max_len, int64_t d_model) {
  // TODO
  (void)max_len, (void)d_model;
  throw std::logic_error("positional_encoding: not written yet (exercise positional_encoding)");
}

}  // namespace atencion::exercise

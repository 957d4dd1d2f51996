// exercises/positional_encoding/starter.cpp — where the exercise starts
// (docs/exercises.md#positional_encoding). Either way of starting judges the same:
// `tools/exercise.sh positional_encoding` copies me to exercises/positional_encoding/mine.cpp (git
// ignores it) and judges that file; or copy me anywhere and run `tools/exercise.sh
// positional_encoding FILE`. I compile as I am, and my judge fails "not written yet".
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

// exercises/positional_encoding/wrong.cpp — each dim gets its own wavelength 10000^(dim/d):
// the cosine of pair i uses (2i + 1)/d instead of 2i/d, so sin and cos no longer pair up and
// PE[pos + k] is no longer a rotation of PE[pos].
#include <cmath>

#include "exercises/positional_encoding/positional_encoding.h"

namespace atencion::exercise {

Tensor positional_encoding(int64_t max_len, int64_t d_model) {
  Tensor table = Tensor::zeros({max_len, d_model}, DType::Float64);
  double* pe = table.data<double>();
  for (int64_t pos = 0; pos < max_len; ++pos) {
    for (int64_t dim = 0; dim < d_model; ++dim) {
      const double angle = static_cast<double>(pos) / std::pow(10000.0, double(dim) / d_model);
      pe[pos * d_model + dim] = dim % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  }
  return table;
}

}  // namespace atencion::exercise

// nn/linear.cpp — y = x Wᵀ + b.
// Lesson: docs/03-linear.md
#include "nn/linear.h"

#include <cmath>
#include <stdexcept>

#include "autograd/ops.h"

namespace atencion::nn {

Linear::Linear(int64_t in_features, int64_t out_features, bool bias, Generator& generator)
    : in_features_(in_features), out_features_(out_features) {
  if (in_features <= 0 || out_features <= 0) {
    throw std::invalid_argument("Linear: in_features " + std::to_string(in_features) +
                                " and out_features " + std::to_string(out_features) +
                                " must be positive");
  }
  // kaiming_uniform_(a=√5): gain = √(2 / (1 + a²)) = √(1/3), bound = gain·√(3 / in) = 1/√in.
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  weight =
      register_parameter("weight", uniform({out_features, in_features}, -bound, bound, generator));
  if (bias)
    this->bias = register_parameter("bias", uniform({out_features}, -bound, bound, generator));
}

std::string Linear::type_name() const {
  return "Linear(in=" + std::to_string(in_features_) + ", out=" + std::to_string(out_features_) +
         ", bias=" + (has_bias() ? "true" : "false") + ")";
}

Variable Linear::forward(const Variable& x) const {
  if (x.dim() < 1 || x.size(-1) != in_features_) {
    throw std::invalid_argument(
        "Linear(in=" + std::to_string(in_features_) + ", out=" + std::to_string(out_features_) +
        "): input of shape " + shape_to_string(x.shape()) + " must end in " +
        std::to_string(in_features_) + " (weight is " + shape_to_string(weight.shape()) + ")");
  }
  // y = x Wᵀ (+ b): [..., in] @ [in, out] = [..., out]; the weight is read transposed, not copied.
  Variable y = matmul(x, weight, Trans::No, Trans::Yes);
  if (has_bias()) y = add(y, bias);  // b broadcasts over every leading dim
  return y;
}

}  // namespace atencion::nn

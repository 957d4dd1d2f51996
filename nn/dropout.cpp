// nn/dropout.cpp — inverted dropout: y = x · keep / (1 - p), keep ~ Bernoulli(1 - p).
// Lesson: docs/06-multi-head-attention.md#dropout
#include "nn/dropout.h"

#include <sstream>
#include <stdexcept>

#include "autograd/ops.h"

namespace atencion::nn {

Dropout::Dropout(double p, uint64_t seed) : p_(p), generator_(seed) {
  if (!(p >= 0.0 && p <= 1.0)) {
    std::ostringstream message;
    message << "Dropout: probability " << p << " is outside [0, 1]";
    throw std::invalid_argument(message.str());
  }
}

Dropout::Dropout(double p, Generator& generator) : Dropout(p, generator.next_u64()) {}

std::string Dropout::type_name() const {
  std::ostringstream name;
  name << "Dropout(p=" << p_ << ")";
  return name.str();
}

Variable Dropout::forward(const Variable& x) {
  if (!is_training() || p_ == 0.0) return x;
  if (!is_floating(x.dtype())) {
    throw std::invalid_argument(std::string("Dropout: expected a float tensor, got ") +
                                dtype_name(x.dtype()));
  }
  // scale = keep / (1 - p): 0 for a dropped element, 1/(1-p) for a kept one. The gradient
  // flows through the same multiplication: dL/dx = scale · dL/dy.
  const Tensor draws = rand(x.shape(), generator_, x.dtype());
  const double kept_scale = p_ < 1.0 ? 1.0 / (1.0 - p_) : 0.0;
  const Tensor scale = where(ge(draws, Tensor::scalar(p_, x.dtype())),
                             Tensor::scalar(kept_scale, x.dtype()), Tensor::scalar(0.0, x.dtype()));
  return mul(x, Variable(scale));
}

}  // namespace atencion::nn

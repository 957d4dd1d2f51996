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
  // y = x · s with s_i = 0 (dropped, probability p) or 1/(1-p) (kept), so E[y] = x; one fused
  // op whose backward, dL/dx = s · dL/dy, replays the draws (autograd/ops/dropout.cpp).
  return dropout(x, p_, generator_);
}

}  // namespace atencion::nn

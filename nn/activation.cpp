// nn/activation.cpp — Softmax and ReLU modules over the autograd ops.
// Lesson: docs/04-softmax.md
#include "nn/activation.h"

#include "autograd/ops.h"

namespace atencion::nn {

Variable Softmax::forward(const Variable& x) const { return softmax(x, dim_); }

std::string Softmax::type_name() const { return "Softmax(dim=" + std::to_string(dim_) + ")"; }

Variable ReLU::forward(const Variable& x) const { return relu(x); }

}  // namespace atencion::nn

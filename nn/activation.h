// nn/activation.h — element-wise and row-wise non-linearities as modules.
// Lesson: docs/04-softmax.md
#pragma once

#include <cstdint>
#include <string>

#include "nn/module.h"

namespace atencion::nn {

// softmax(x)_i = exp(x_i - max_j x_j) / Σ_j exp(x_j - max_j x_j) along `dim`: each slice along
// `dim` becomes positive weights summing to 1 (notebook 001's "attention percentages").
// Subtracting the max changes nothing mathematically but keeps exp from overflowing
// (notebook 004). A slice of all -inf (everything masked) gives zeros, not NaN.
class Softmax : public Module {
 public:
  explicit Softmax(int64_t dim = -1) : dim_(dim) {}
  Variable forward(const Variable& x) const;
  Variable operator()(const Variable& x) const { return forward(x); }
  std::string type_name() const override;
  int64_t dim() const { return dim_; }

 private:
  int64_t dim_;
};

// relu(x) = max(x, 0).
class ReLU : public Module {
 public:
  Variable forward(const Variable& x) const;
  Variable operator()(const Variable& x) const { return forward(x); }
  std::string type_name() const override { return "ReLU()"; }
};

}  // namespace atencion::nn

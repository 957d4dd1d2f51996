// nn/linear.h — the fully connected layer: y = x Wᵀ + b.
// Lesson: docs/03-linear.md ; notebooks 003 ("el bloque Linear") and 002 (W^Q, W^K, W^V, W^O).
//
// PyTorch's layout and initialisation, so that torch.nn.Linear weights load directly:
//   weight  [out_features, in_features]
//   bias    [out_features]               (absent when bias = false)
// Both drawn from U(-1/√in, 1/√in): torch's kaiming_uniform_(a=√5) for the weight works out to
// exactly that bound, and its bias uses the same one.
#pragma once

#include <cstdint>
#include <string>

#include "nn/module.h"
#include "tensor/random.h"

namespace atencion::nn {

class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias, Generator& generator);
  Linear(int64_t in_features, int64_t out_features, Generator& generator)
      : Linear(in_features, out_features, /*bias=*/true, generator) {}

  // x [..., in_features] -> y [..., out_features]; any number of leading dims.
  Variable forward(const Variable& x) const;
  Variable operator()(const Variable& x) const { return forward(x); }

  std::string type_name() const override;
  int64_t in_features() const { return in_features_; }
  int64_t out_features() const { return out_features_; }
  bool has_bias() const { return bias.defined(); }

  Variable weight;  // [out_features, in_features]
  Variable bias;    // [out_features], or undefined

 private:
  int64_t in_features_;
  int64_t out_features_;
};

}  // namespace atencion::nn

// nn/feed_forward.h — the position-wise feed-forward network of each Transformer layer (§3.3).
// Lesson: docs/10-transformer.md#feed-forward
//
//   FFN(x) = max(0, x W₁ᵀ + b₁) W₂ᵀ + b₂        W₁ [d_ff, d_model], W₂ [d_model, d_ff]
//
// Linear → ReLU → Dropout → Linear, applied to every position on its own (the same weights for
// all positions: the only place where tokens do not look at each other). The paper widens to
// d_ff = 4·d_model in between. Named linear1 / dropout / linear2 as in torch's layers.
// BERT and GPT put GELU where the paper has ReLU: gelu(h) = h·Φ(h) (the exact erf form, as
// torch's activation="gelu"), a smooth ReLU that lets a little of each negative value through;
// GPT-2 computes Φ with its tanh approximation (GELUTanh: gelu(h, GeluApproximation::Tanh),
// autograd/ops.h, torch's F.gelu(h, approximate='tanh')).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/dropout.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "tensor/random.h"

namespace atencion::nn {

enum class Activation { ReLU, GELU, GELUTanh };

class FeedForward : public Module {
 public:
  FeedForward(int64_t d_model, int64_t d_ff, double dropout, Generator& generator,
              Activation activation = Activation::ReLU);

  // x [..., d_model] -> [..., d_model]
  Variable forward(const Variable& x);
  Variable operator()(const Variable& x) { return forward(x); }

  std::string type_name() const override;

  std::shared_ptr<Linear> linear1;  // d_model -> d_ff
  std::shared_ptr<Dropout> dropout;
  std::shared_ptr<Linear> linear2;  // d_ff -> d_model

 private:
  Activation activation_;
};

}  // namespace atencion::nn

// nn/feed_forward.cpp — Lesson: docs/10-transformer.md#feed-forward
#include "nn/feed_forward.h"

#include "autograd/ops.h"

namespace atencion::nn {

FeedForward::FeedForward(int64_t d_model, int64_t d_ff, double dropout_p, Generator& generator,
                         Activation activation)
    : activation_(activation) {
  linear1 = register_module("linear1", std::make_shared<Linear>(d_model, d_ff, generator));
  dropout = register_module("dropout", std::make_shared<Dropout>(dropout_p, generator));
  linear2 = register_module("linear2", std::make_shared<Linear>(d_ff, d_model, generator));
}

std::string FeedForward::type_name() const {
  return "FeedForward(d_model=" + std::to_string(linear1->in_features()) +
         ", d_ff=" + std::to_string(linear1->out_features()) +
         (activation_ == Activation::GELU       ? ", activation=gelu)"
          : activation_ == Activation::GELUTanh ? ", activation=gelu(tanh))"
                                                : ")");
}

// Dropout before relu gives the very values of dropout after it (each is a scale s ≥ 0, and
// max(0, s·h) = s·max(0, h)), from the same draws. In this order relu's output is what linear2
// reads, the one tensor the backward of both needs: docs/10-transformer.md#feed-forward.
// GELU is not positively homogeneous, so with it dropout comes after the activation, as torch.
Variable FeedForward::forward(const Variable& x) {
  if (activation_ == Activation::GELU)
    return (*linear2)((*dropout)(gelu((*linear1)(x))));  // gelu(x W₁ᵀ + b₁), dropped out
  if (activation_ == Activation::GELUTanh)  // GPT-2's
    return (*linear2)((*dropout)(gelu((*linear1)(x), GeluApproximation::Tanh)));
  Variable hidden = relu((*dropout)((*linear1)(x)));  // max(0, x W₁ᵀ + b₁), dropped out
  return (*linear2)(hidden);                          // (·) W₂ᵀ + b₂    [..., d_model]
}

}  // namespace atencion::nn

// nn/feed_forward.cpp — Lesson: docs/10-transformer.md#feed-forward
#include "nn/feed_forward.h"

#include "autograd/ops.h"

namespace atencion::nn {

FeedForward::FeedForward(int64_t d_model, int64_t d_ff, double dropout_p, Generator& generator) {
  linear1 = register_module("linear1", std::make_shared<Linear>(d_model, d_ff, generator));
  dropout = register_module("dropout", std::make_shared<Dropout>(dropout_p, generator));
  linear2 = register_module("linear2", std::make_shared<Linear>(d_ff, d_model, generator));
}

std::string FeedForward::type_name() const {
  return "FeedForward(d_model=" + std::to_string(linear1->in_features()) +
         ", d_ff=" + std::to_string(linear1->out_features()) + ")";
}

Variable FeedForward::forward(const Variable& x) {
  Variable hidden = relu((*linear1)(x));  // max(0, x W₁ᵀ + b₁)   [..., d_ff]
  return (*linear2)((*dropout)(hidden));  // (·) W₂ᵀ + b₂          [..., d_model]
}

}  // namespace atencion::nn

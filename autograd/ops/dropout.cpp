// autograd/ops/dropout.cpp — inverted dropout as one op whose backward replays the draws.
// Lesson: docs/06-multi-head-attention.md#dropout
//
// Element i is kept with probability 1 - p and then scaled by 1/(1-p), so E[y] = x:
//   y_i = x_i · s_i,   s_i = [u_i >= p] / (1 - p),   u_i the i-th 32-bit uniform drawn next
//   (the rule, two uniforms per generator word, is in tensor/random.h).
// y is linear in x with the fixed factors s, so dx_i = g_i · s_i. Rather than keep s (one
// number per element) until the backward, the op keeps a copy of the generator as it was
// before the draws and draws the same u_i again (tensor/random.h, peek_u64).
// Spelled out with separate tensors this is mul(x, dropout_scale(shape, p, generator)).
#include "autograd/ops.h"

namespace atencion {

Variable dropout(const Variable& x, double p, Generator& generator) {
  const Generator draws = generator;           // the state before this mask's draws
  generator.skip(dropout_words(x.value().numel()));  // the next mask: new draws
  return record("dropout", dropout_multiply(x.value(), p, draws), {x},
                [=](const Tensor& g) -> Grads { return {dropout_multiply(g, p, draws)}; });
}

}  // namespace atencion

// nn/loss.h — cross-entropy from logits, as torch.nn.functional.cross_entropy.
// Lesson: docs/11-training.md#cross-entropy
//
// For one position with logits z ∈ R^C and target class y, with log p = log_softmax(z):
//   nll    = −log p_y                                  (how surprised the model is by y)
//   smooth = −(1/C) Σ_c log p_c                        (surprise against a uniform guess)
//   loss   = (1 − ε) · nll + ε · smooth                ε = label_smoothing (0 = plain CE)
// which is the cross-entropy against the target distribution q = (1 − ε)·onehot(y) + ε/C.
// Positions whose target is ignore_index (padding) contribute nothing; Mean divides the sum
// by the number of the other positions (so a batch of only ignored targets gives NaN, as torch).
//
// The class dimension is the LAST one: logits [N, C] with targets [N], or [B, T, C] with
// targets [B, T] (torch wants the classes in dim 1 for 3-D input, so torch code writes
// cross_entropy(logits.view(-1, C), targets.view(-1)) for the same thing).
#pragma once

#include <cstdint>

#include "autograd/variable.h"

namespace atencion::nn {

enum class Reduction { Mean, Sum, None };

// torch's default ignore_index: a target of this value counts for nothing (padding, or a
// position a masked language model is not asked about).
inline constexpr int64_t kIgnoreIndex = -100;

struct CrossEntropyOptions {
  int64_t ignore_index = kIgnoreIndex;
  double label_smoothing = 0;   // ε in [0, 1]; the paper trains with 0.1
  Reduction reduction = Reduction::Mean;
};

// logits: Float32/Float64 [..., C]; targets: Int64 with logits' shape minus the last dim, each
// in [0, C) or equal to ignore_index. Returns a scalar (Mean, Sum) or the per-position losses
// with the targets' shape (None).
Variable cross_entropy(const Variable& logits, const Tensor& targets,
                       const CrossEntropyOptions& options = {});

// The positions of `targets` (Int64, any shape, counted row-major) whose target is not
// `ignore_index`, and those targets: the only rows that a loss with ignore_index would count,
// so a head need run on them alone (BERT's masked-LM head: about 15% of the positions).
struct CountedRows {
  Tensor rows;     // Int64 [count]: flat positions, for index_select over [positions, d]
  Tensor targets;  // Int64 [count]
  int64_t count = 0;
};
CountedRows counted_rows(const Tensor& targets, int64_t ignore_index = kIgnoreIndex);

// cross_entropy(input · weightᵀ + bias, targets, options) without ever holding the logits
// [N, C] or their gradient: the rows go through in chunks of `chunk_rows`, and since the loss
// is the graph's end, each chunk's gradient is worked out in the forward pass itself (for a
// gradient of 1 arriving at the loss; backward scales it by the gradient that does arrive).
// What stays is one [N, d] and one [C, d] gradient instead of two [N, C] tensors: the trick
// of llm.c's and Liger's fused classifier. docs/11-training.md#cross-entropy
// input: [..., d]; weight: [C, d] (Linear's layout); bias: [C] or undefined; targets: input's
// shape without the last dim. Mean and Sum reductions (None: composed from matmul, add and
// cross_entropy, which is what the fused op is tested against).
Variable linear_cross_entropy(const Variable& input, const Variable& weight, const Variable& bias,
                              const Tensor& targets, const CrossEntropyOptions& options = {},
                              int64_t chunk_rows = 256);

}  // namespace atencion::nn

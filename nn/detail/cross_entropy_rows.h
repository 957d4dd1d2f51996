// nn/detail/cross_entropy_rows.h — the row loops of cross-entropy, shared by cross_entropy
// (nn/loss.cpp) and the fused linear_cross_entropy (nn/linear_cross_entropy.cpp).
// Lesson: docs/11-training.md#cross-entropy
//
// Rows of logits z ∈ R^C with one target class each (or ignore_index):
//   forward_rows:  lse_i = log Σ_c e^(z_c), loss_i = (1 − ε)(lse_i − z_y) + ε(lse_i − mean_c z_c)
//   backward_rows: dz_c = weight_i · (p_c − q_c),  p = e^(z − lse),  q = (1 − ε)onehot(y) + ε/C
// Compiled with -fno-math-errno -fno-trapping-math -ffp-contract=off (CMakeLists.txt): the
// float loops vectorise, and every CPU clone rounds as the SSE2 one, so results are the same
// bits on every CPU and for any number of threads.
#pragma once

#include <cstdint>
#include <vector>

namespace atencion::nn::detail {

struct Rows {
  int64_t count;    // N: positions (all dims but the last, flattened)
  int64_t classes;  // C
};

// What the rows need of CrossEntropyOptions (nn/loss.h, which builds on this header):
// the target that marks a row to skip, and ε.
struct RowTargets {
  int64_t ignore_index;
  double label_smoothing;
};

// How many targets are not ignore_index; throws, naming `op` and the position, for a target
// outside [0, C) that is not ignore_index.
int64_t count_kept_targets(const char* op, const int64_t* targets, Rows rows, RowTargets rule);

// Σ_i row_loss[i] in row order (the same for any thread count), divided by `kept` when `mean`
// (Reduction::Mean; NaN when nothing is kept, as torch).
double reduce_rows(const std::vector<double>& row_loss, int64_t kept, bool mean);

// row_loss[i] and logsumexp[i] for each row (0 loss for an ignored row).
void forward_rows(const float* logits, const int64_t* targets, Rows rows, RowTargets rule,
                  double* row_loss, double* logsumexp);
void forward_rows(const double* logits, const int64_t* targets, Rows rows, RowTargets rule,
                  double* row_loss, double* logsumexp);

// grad_logits = row_weight[i] · (p − q) for each row, 0 for an ignored row. grad_logits may be
// the logits themselves (each element is read once, then written).
void backward_rows(const float* logits, const int64_t* targets, const double* logsumexp,
                   const double* row_weight, Rows rows, RowTargets rule, float* grad_logits);
void backward_rows(const double* logits, const int64_t* targets, const double* logsumexp,
                   const double* row_weight, Rows rows, RowTargets rule, double* grad_logits);

}  // namespace atencion::nn::detail

// nn/detail/cross_entropy_rows.cpp — see nn/detail/cross_entropy_rows.h.
// Lesson: docs/11-training.md#cross-entropy
#include "nn/detail/cross_entropy_rows.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/detail/fast_exp.h"
#include "tensor/detail/row_lanes.h"
#include "tensor/threads.h"

namespace atencion::nn::detail {
namespace {

// e^x: the vectorisable float32 version (tensor/detail/fast_exp.h, within 1 ulp), and the
// library's for float64, where gradcheck wants every digit.
inline float exp_of(float x) { return atencion::detail::fast_exp(x); }
inline double exp_of(double x) { return std::exp(x); }

struct RowSums {
  double logsumexp;  // log Σ_c e^(z_c)
  double sum;        // Σ_c z_c
};

// One row's log-sum-exp, computed as m + log Σ_c e^(z_c − m) with m = max_c z_c so that no
// exponent is positive, and the plain sum of the logits. Written for the vectoriser: the max and
// the sums run in kLanes independent lanes (tensor/detail/row_lanes.h, which also fixes the
// order of the additions, so the result does not depend on threads), and the exponentials go
// through `scratch` (C values).
constexpr int64_t kLanes = 8;

template <typename T>
[[gnu::always_inline]] inline RowSums row_sums(const T* z, int64_t C, T* scratch) {
  const T max = atencion::detail::row_max<kLanes>(z, C);
  for (int64_t c = 0; c < C; ++c) scratch[c] = exp_of(z[c] - max);  // e^(z_c − m) ≤ 1
  const double total_exp = atencion::detail::row_sum<kLanes>(scratch, C);
  const double total_z = atencion::detail::row_sum<kLanes>(z, C);
  return {static_cast<double>(max) + std::log(total_exp), total_z};
}

// The float32 rows are compiled three times (AVX-512, AVX2, SSE2) and the best for the CPU is
// picked at start-up: the exponentials of a [tokens, 8000] matrix are most of the loss's time.
// nn/loss.cpp is compiled with -ffp-contract=off (CMakeLists.txt), so the wider clones round
// every operation as the SSE2 one does: the loss is the same bits on every CPU.
#define ATENCION_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

ATENCION_CLONES RowSums fast_row_sums(const float* z, int64_t C, float* scratch) {
  return row_sums(z, C, scratch);
}
RowSums fast_row_sums(const double* z, int64_t C, double* scratch) {
  return row_sums(z, C, scratch);
}

// dz_c = weight · (e^(z_c − lse) − ε/C), the one row of the backward below.
template <typename T>
[[gnu::always_inline]] inline void backward_row(const T* z, int64_t C, T lse, T weight, T uniform,
                                                T* dz) {
  for (int64_t c = 0; c < C; ++c) dz[c] = weight * (exp_of(z[c] - lse) - uniform);
}
ATENCION_CLONES void fast_backward_row(const float* z, int64_t C, float lse, float weight,
                                       float uniform, float* dz) {
  backward_row(z, C, lse, weight, uniform, dz);
}
void fast_backward_row(const double* z, int64_t C, double lse, double weight, double uniform,
                       double* dz) {
  backward_row(z, C, lse, weight, uniform, dz);
}
#undef ATENCION_CLONES

// Forward, row i:  lse_i = log Σ_c e^(z_c)  (computed as m + log Σ e^(z_c − m), m = max z)
//   nll_i    = −log p_y = lse_i − z_y
//   smooth_i = −(1/C) Σ_c log p_c = lse_i − (1/C) Σ_c z_c
//   loss_i   = (1 − ε) nll_i + ε smooth_i,   0 for an ignored row.
template <typename T>
void forward_rows_of(const T* logits, const int64_t* targets, Rows rows,
                  RowTargets o, double* row_loss, double* logsumexp) {
  const int64_t C = rows.classes;
  const double eps = o.label_smoothing;
  parallel_for_ranges(rows.count, C, [&](int64_t begin, int64_t end) {
    std::vector<T> scratch(C);  // one per run of rows
    for (int64_t i = begin; i < end; ++i) {
      const T* z = logits + i * C;
      const RowSums sums = fast_row_sums(z, C, scratch.data());
      const double lse = sums.logsumexp;
      logsumexp[i] = lse;
      if (targets[i] == o.ignore_index) {
        row_loss[i] = 0;
        continue;
      }
      const double nll = lse - static_cast<double>(z[targets[i]]);
      const double smooth = lse - sums.sum / static_cast<double>(C);
      row_loss[i] = (1 - eps) * nll + eps * smooth;
    }
  });
}

// Backward, row i. With p = softmax(z) = e^(z − lse):
//   ∂nll/∂z_c    = p_c − [c = y]        (from −z_y + lse, and ∂lse/∂z_c = p_c)
//   ∂smooth/∂z_c = p_c − 1/C            (from −(1/C) Σ z + lse)
// so ∂loss_i/∂z_c = p_c − q_c with the smoothed target q_c = (1 − ε)[c = y] + ε/C,
// and dL/dz_c = weight_i · (p_c − q_c), where weight_i is the gradient arriving for loss_i
// (g/N' for Mean over N' kept rows, g for Sum, g_i for None) and 0 for an ignored row.
template <typename T>
void backward_rows_of(const T* logits, const int64_t* targets, const double* logsumexp,
                   const double* row_weight, Rows rows, RowTargets o,
                   T* grad_logits) {
  const int64_t C = rows.classes;
  const double eps = o.label_smoothing;
  const double uniform = eps / static_cast<double>(C);
  parallel_for(rows.count, C, [&](int64_t i) {
    const T* z = logits + i * C;
    T* dz = grad_logits + i * C;
    if (targets[i] == o.ignore_index) {
      for (int64_t c = 0; c < C; ++c) dz[c] = 0;
      return;
    }
    const T weight = static_cast<T>(row_weight[i]);
    const T lse = static_cast<T>(logsumexp[i]);
    fast_backward_row(z, C, lse, weight, static_cast<T>(uniform), dz);
    dz[targets[i]] -= weight * static_cast<T>(1 - eps);  // q_y also holds 1 − ε
  });
}

}  // namespace

int64_t count_kept_targets(const char* op, const int64_t* targets, Rows rows,
                           RowTargets options) {
  int64_t kept = 0;
  for (int64_t i = 0; i < rows.count; ++i) {
    if (targets[i] == options.ignore_index) continue;
    if (targets[i] < 0 || targets[i] >= rows.classes)
      throw std::out_of_range(std::string(op) + ": target " + std::to_string(targets[i]) +
                              " at position " + std::to_string(i) + " is outside [0, " +
                              std::to_string(rows.classes) + ") and is not ignore_index " +
                              std::to_string(options.ignore_index));
    ++kept;
  }
  return kept;
}

double reduce_rows(const std::vector<double>& row_loss, int64_t kept, bool mean) {
  double total = 0;
  for (double value : row_loss) total += value;
  if (!mean) return total;
  return kept > 0 ? total / static_cast<double>(kept) : std::numeric_limits<double>::quiet_NaN();
}

void forward_rows(const float* logits, const int64_t* targets, Rows rows,
                  RowTargets options, double* row_loss, double* logsumexp) {
  forward_rows_of(logits, targets, rows, options, row_loss, logsumexp);
}
void forward_rows(const double* logits, const int64_t* targets, Rows rows,
                  RowTargets options, double* row_loss, double* logsumexp) {
  forward_rows_of(logits, targets, rows, options, row_loss, logsumexp);
}
void backward_rows(const float* logits, const int64_t* targets, const double* logsumexp,
                   const double* row_weight, Rows rows, RowTargets options,
                   float* grad_logits) {
  backward_rows_of(logits, targets, logsumexp, row_weight, rows, options, grad_logits);
}
void backward_rows(const double* logits, const int64_t* targets, const double* logsumexp,
                   const double* row_weight, Rows rows, RowTargets options,
                   double* grad_logits) {
  backward_rows_of(logits, targets, logsumexp, row_weight, rows, options, grad_logits);
}

}  // namespace atencion::nn::detail

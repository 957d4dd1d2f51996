// tensor/packed_rows.cpp — W in panels of 32 rows, and the one-row product that reads them (see
// tensor/packed_rows.h). Lesson: docs/performance.md#one-row-products
#include "tensor/packed_rows.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <vector>

#include "tensor/gemm_kernel.h"
#include "tensor/threads.h"
#include "tensor/weight_rows.h"

namespace atencion {
namespace {

constexpr int64_t kPanelRows = PackedRows::kPanelRows;
constexpr int64_t kc = gemm_detail::kBlockBytes / sizeof(float);  // gemm's blocks: its bits

}  // namespace

void check_packed_rows_support(const std::string& operation, const CpuFeatures& cpu) {
  if (cpu.avx2 && cpu.fma) return;
  const std::string lacking = !cpu.avx2 && !cpu.fma ? "AVX2, FMA" : !cpu.avx2 ? "AVX2" : "FMA";
  throw std::runtime_error(operation + ": packed weights need a CPU with AVX2 and FMA (this one "
                           "lacks " + lacking + ")");
}

PackedRows::PackedRows(const Tensor& weight, int64_t panel_rows) : panel_rows_(panel_rows) {
  if (weight.dim() != 2 || weight.dtype() != DType::Float32)
    throw std::invalid_argument("PackedRows: expected a 2-D float32 matrix, got " +
                                shape_to_string(weight.shape()) + " " +
                                dtype_name(weight.dtype()));
  if (panel_rows < 1 || panel_rows > 64)
    throw std::invalid_argument("PackedRows: panels of " + std::to_string(panel_rows) +
                                " rows; expected 1 to 64");
  check_packed_rows_support("PackedRows");
  const Tensor w = weight.contiguous();
  rows_ = w.size(0);
  cols_ = w.size(1);
  const int64_t P = panel_rows_;
  values_ = aligned_array<float>(static_cast<std::size_t>(panels() * P * cols_));
  const float* from = w.data<float>();
  // panel r, step p, lane i = W[P r + i, p]; zeros past the last row
  parallel_for(panels(), P * cols_, [&](int64_t r) {
    float* to = values_.get() + r * P * cols_;
    for (int64_t i = 0; i < P; ++i) {
      const int64_t j = r * P + i;
      for (int64_t p = 0; p < cols_; ++p) to[p * P + i] = j < rows_ ? from[j * cols_ + p] : 0.0f;
    }
  });
}

void gemm_packed_row_reference(const float* a, int64_t a_step, const PackedRows& w, float* c,
                               bool accumulate) {
  for (int64_t j = 0; j < w.rows(); ++j) {
    for (int64_t pc = 0; pc < w.cols(); pc += kc) {
      float sum = 0.0f;  // a block of kc steps, from zero, in order
      for (int64_t p = pc; p < std::min(w.cols(), pc + kc); ++p)
        sum = std::fma(a[p * a_step], w.at(j, p), sum);
      c[j] = accumulate || pc > 0 ? c[j] + sum : sum;
    }
  }
}

void gemm_packed_row(const float* a, int64_t a_step, const PackedRows& w, float* c,
                     bool accumulate) {
  const PackedRows* one_w[] = {&w};
  float* const one_c[] = {c};
  gemm_packed_row_many(a, a_step, one_w, one_c, accumulate);
}

void gemm_packed_row_many(const float* a, int64_t a_step, std::span<const PackedRows* const> w,
                          std::span<float* const> c, bool accumulate) {
  if (w.empty() || c.size() != w.size())
    throw std::logic_error("gemm_packed_row_many: " + std::to_string(w.size()) + " weights and " +
                           std::to_string(c.size()) + " outputs; expected as many, at least one");
  const int64_t k = w[0]->cols();
  int64_t n = 0;
  std::vector<int64_t> panels;
  for (const PackedRows* weight : w) {
    if (weight->panel_rows() != kPanelRows)
      throw std::logic_error("gemm_packed_row: W's panels are of " +
                             std::to_string(weight->panel_rows()) +
                             " rows; the one-row product reads panels of 32");
    if (weight->cols() != k)
      throw std::logic_error("gemm_packed_row_many: weights of " + std::to_string(k) + " and " +
                             std::to_string(weight->cols()) + " columns; one row times each "
                             "needs the same");
    n += weight->rows();
    panels.push_back(weight->panels());
  }
  if (n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (size_t m = 0; m < w.size(); ++m) std::fill(c[m], c[m] + w[m]->rows(), 0.0f);
    return;
  }
  // As gemm() splits a row: its thread count for this work, runs of 64 outputs (4 panels), a
  // few runs per thread; one thread inside a task (the caller already splits the work).
  const int available = detail::in_parallel_task() ? 1 : num_threads();
  const int threads = static_cast<int>(
      std::clamp<int64_t>(n * k / gemm_detail::min_work_per_thread, 1, available));
  gemm_detail::for_panel_runs_of(
      panels, kPanelRows, threads, [&](size_t m, int64_t first, int64_t last) {
        gemm_detail::avx2_packed_row_product(k, a, a_step, w[m]->panel(0), w[m]->rows(), c[m],
                                             accumulate, kc, first, last);
      });
}

Tensor matmul_packed_row(const Tensor& x, const PackedRows& weight) {
  const PackedRows* one[] = {&weight};
  return std::move(matmul_packed_row_many(x, one)[0]);
}

std::vector<Tensor> matmul_packed_row_many(const Tensor& x,
                                           std::span<const PackedRows* const> weights) {
  return detail::one_row_times_each(
      x, weights, "matmul_packed_row", [&](const float* row, std::span<float* const> outputs) {
        gemm_packed_row_many(row, 1, weights, outputs, /*accumulate=*/false);
      });
}

int64_t gemm_panel_rows() { return gemm_detail::best_kernel<float>().nr; }

bool matmul_packed_reads(const PackedRows& weight, int64_t rows) {
  return weight.panel_rows() == (rows == 1 ? kPanelRows : gemm_panel_rows());
}

Tensor matmul_packed(const Tensor& x, const PackedRows& weight) {
  const int64_t k = weight.cols(), n = weight.rows();
  detail::check_weight_rows(x.dtype() == DType::Float32 && x.dim() >= 1 && x.size(-1) == k, x,
                            "matmul_packed", "float32 rows of", n, k);
  if (x.numel() == k) return matmul_packed_row(x, weight);
  const int64_t m = x.numel() / k;
  if (!matmul_packed_reads(weight, m))
    throw std::logic_error("matmul_packed: W's panels are of " +
                           std::to_string(weight.panel_rows()) + " rows; gemm's kernel (" +
                           std::string(gemm_detail::best_kernel<float>().name) +
                           ") reads panels of " + std::to_string(gemm_panel_rows()));
  const Tensor rows = x.contiguous();
  Tensor y = detail::weight_rows_output(x, n);
  // y = x · Wᵀ: op(B) is W [n, k] read transposed, whose packing the panels are.
  const GemmShape s{m, n, k, false, true, k, k, n};
  const int threads = detail::in_parallel_task() ? 1 : num_threads();
  gemm_detail::gemm_with(gemm_detail::best_kernel<float>(), s, rows.data<float>(),
                         static_cast<const float*>(nullptr), y.data<float>(),
                         /*accumulate=*/false, threads, weight.panel(0));
  return y;
}

}  // namespace atencion

// tensor/gemm_bfloat16.cpp — x·Wᵀ with W stored as bfloat16 (see tensor/gemm_bfloat16.h).
// Lesson: docs/performance.md#bfloat16-weights
#include "tensor/gemm_bfloat16.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/gemm_kernel.h"
#include "tensor/half.h"
#include "tensor/threads.h"

namespace atencion {
namespace {

CpuFeatures detect_cpu_features() {
  const char* forced = std::getenv("ATENCION_GEMM_KERNEL");
  if (forced && std::string(forced) == "generic") return {};
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  return {__builtin_cpu_supports("avx2") != 0, __builtin_cpu_supports("fma") != 0};
#else
  return {};
#endif
}

void check_layout(const GemmShape& s, const BFloat16Matrix& w, const char* operation) {
  if (!s.trans_b || s.n != w.rows() || s.k != w.cols())
    throw std::invalid_argument(std::string(operation) + ": (n, k) = (" + std::to_string(s.n) +
                                ", " + std::to_string(s.k) + ") with trans_b must be W's [" +
                                std::to_string(w.rows()) + ", " + std::to_string(w.cols()) + "]");
}

using gemm_detail::ceil_div;
using gemm_detail::min_work_per_thread;
constexpr int64_t kc = gemm_detail::kBlockBytes / sizeof(float);  // gemm's blocks: its bits

// One row times each W_m: the panels of 64 rows read once, a few runs of them per thread (as
// gemm's row_product splits a row's outputs), the runs cut over all the W_m's panels together.
void one_row_many(int64_t k, const float* a, int64_t a_step,
                  std::span<const BFloat16Matrix* const> w, std::span<float* const> c,
                  bool accumulate, int threads) {
  std::vector<int64_t> panels;
  for (const BFloat16Matrix* weight : w) panels.push_back(weight->panels());
  gemm_detail::for_panel_runs_of(
      panels, BFloat16Matrix::kPanelRows, threads, [&](size_t m, int64_t first, int64_t last) {
        gemm_detail::avx2_packed_row_product_bfloat16(k, a, a_step, w[m]->panel(0), w[m]->rows(),
                                                      c[m], accumulate, kc, first, last);
      });
}

// The thread count gemm() takes for this work; one inside a task (the caller already splits it).
int threads_for(int64_t multiply_adds) {
  const int available = detail::in_parallel_task() ? 1 : num_threads();
  return static_cast<int>(std::clamp<int64_t>(multiply_adds / min_work_per_thread, 1, available));
}

// More rows: W widened `tile` outputs at a time into a float32 buffer of the task's thread, and
// C[:, tile] (+)= op(A) · (widened tile)ᵀ by gemm's kernel on that thread.
void widened_tiles(const GemmShape& s, const float* a, const BFloat16Matrix& w, float* c,
                   bool accumulate, int threads) {
  constexpr int64_t tile = 128;
  parallel_tasks(ceil_div(s.n, tile), threads, [&](int64_t task) {
    const int64_t first = task * tile, outputs = std::min(tile, s.n - first);
    thread_local std::vector<float> widened;
    widened.resize(static_cast<size_t>(outputs * s.k));
    for (int64_t j = 0; j < outputs; ++j)
      for (int64_t p = 0; p < s.k; ++p)
        widened[j * s.k + p] = bfloat16_to_float(w.at(first + j, p));
    GemmShape part = s;
    part.n = outputs;
    part.ldb = s.k;
    gemm_detail::gemm_with(gemm_detail::best_kernel<float>(), part, a, widened.data(),
                           c + first, accumulate, 1);
  });
}

}  // namespace

CpuFeatures cpu_features() {
  static const CpuFeatures features = detect_cpu_features();
  return features;
}

void check_bfloat16_support(const std::string& operation, const CpuFeatures& cpu) {
  if (cpu.avx2 && cpu.fma) return;
  const std::string lacking = !cpu.avx2 && !cpu.fma ? "AVX2, FMA" : !cpu.avx2 ? "AVX2" : "FMA";
  throw std::runtime_error(operation + ": bfloat16 weights need a CPU with AVX2 and FMA (this one "
                           "lacks " + lacking + ")");
}

void gemm_bfloat16_reference(const GemmShape& s, const float* a, const BFloat16Matrix& w,
                             float* c, bool accumulate) {
  check_layout(s, w, "gemm_bfloat16_reference");
  const Tensor widened = w.to_float32();
  GemmShape dense = s;
  dense.ldb = s.k;
  gemm_reference(dense, a, widened.data<float>(), c, accumulate);
}

void gemm_bfloat16(const GemmShape& s, const float* a, const BFloat16Matrix& w, float* c,
                   bool accumulate) {
  check_layout(s, w, "gemm_bfloat16");
  check_bfloat16_support("gemm_bfloat16");
  if (s.m <= 0 || s.n <= 0) return;
  if (s.k <= 0) {
    if (!accumulate)
      for (int64_t i = 0; i < s.m; ++i) std::fill(c + i * s.ldc, c + i * s.ldc + s.n, 0.0f);
    return;
  }
  const int threads = threads_for(s.m * s.n * s.k);
  if (s.m == 1) {
    const BFloat16Matrix* one_w[] = {&w};
    float* const one_c[] = {c};
    one_row_many(s.k, a, s.trans_a ? s.lda : 1, one_w, one_c, accumulate, threads);
  } else {
    widened_tiles(s, a, w, c, accumulate, threads);
  }
}

void gemm_bfloat16_row_many(const float* a, int64_t a_step,
                            std::span<const BFloat16Matrix* const> w, std::span<float* const> c,
                            bool accumulate) {
  if (w.empty() || c.size() != w.size())
    throw std::logic_error("gemm_bfloat16_row_many: " + std::to_string(w.size()) +
                           " weights and " + std::to_string(c.size()) +
                           " outputs; expected as many, at least one");
  check_bfloat16_support("gemm_bfloat16");
  const int64_t k = w[0]->cols();
  int64_t n = 0;
  for (const BFloat16Matrix* weight : w) {
    if (weight->cols() != k)
      throw std::logic_error("gemm_bfloat16_row_many: weights of " + std::to_string(k) + " and " +
                             std::to_string(weight->cols()) + " columns; one row times each "
                             "needs the same");
    n += weight->rows();
  }
  if (n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (size_t m = 0; m < w.size(); ++m) std::fill(c[m], c[m] + w[m]->rows(), 0.0f);
    return;
  }
  one_row_many(k, a, a_step, w, c, accumulate, threads_for(n * k));
}

}  // namespace atencion

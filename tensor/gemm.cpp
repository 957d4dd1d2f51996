// tensor/gemm.cpp — the matrix multiply under tensor::matmul (see tensor/gemm.h).
// Lesson: docs/performance.md#how-the-matmul-gets-its-speed
#include "tensor/gemm.h"

namespace atencion {
namespace {

// op(A)[i, p]: A itself (m x k) or the transpose of a stored k x m matrix.
template <typename T>
T element_a(const GemmShape& s, const T* a, int64_t i, int64_t p) {
  return s.trans_a ? a[p * s.lda + i] : a[i * s.lda + p];
}

template <typename T>
T element_b(const GemmShape& s, const T* b, int64_t p, int64_t j) {
  return s.trans_b ? b[j * s.ldb + p] : b[p * s.ldb + j];
}

// C[i, j] = sum_p op(A)[i, p] * op(B)[p, j], summed in order p = 0, 1, ..., k-1.
template <typename T>
void reference_loop(const GemmShape& s, const T* a, const T* b, T* c, bool accumulate) {
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      T sum = 0;
      for (int64_t p = 0; p < s.k; ++p) sum += element_a(s, a, i, p) * element_b(s, b, p, j);
      T& out = c[i * s.ldc + j];
      out = accumulate ? out + sum : sum;
    }
  }
}

}  // namespace

void gemm_reference(const GemmShape& s, const float* a, const float* b, float* c, bool accumulate) {
  reference_loop(s, a, b, c, accumulate);
}
void gemm_reference(const GemmShape& s, const double* a, const double* b, double* c,
                    bool accumulate) {
  reference_loop(s, a, b, c, accumulate);
}

void gemm(const GemmShape& s, const float* a, const float* b, float* c, bool accumulate) {
  reference_loop(s, a, b, c, accumulate);
}
void gemm(const GemmShape& s, const double* a, const double* b, double* c, bool accumulate) {
  reference_loop(s, a, b, c, accumulate);
}

void gemm_batched(const GemmShape& s, int64_t batch, const float* a, int64_t stride_a,
                  const float* b, int64_t stride_b, float* c, int64_t stride_c, bool accumulate) {
  for (int64_t i = 0; i < batch; ++i)
    reference_loop(s, a + i * stride_a, b + i * stride_b, c + i * stride_c, accumulate);
}
void gemm_batched(const GemmShape& s, int64_t batch, const double* a, int64_t stride_a,
                  const double* b, int64_t stride_b, double* c, int64_t stride_c,
                  bool accumulate) {
  for (int64_t i = 0; i < batch; ++i)
    reference_loop(s, a + i * stride_a, b + i * stride_b, c + i * stride_c, accumulate);
}

}  // namespace atencion

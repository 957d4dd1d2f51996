// tensor/gemm.h — the matrix-multiply kernel under tensor::matmul, on raw row-major pointers.
// Lesson: docs/performance.md#how-the-matmul-gets-its-speed
//
//   C[m, n] = sum_k op(A)[m, k] * op(B)[k, n]        (C is overwritten, or added to if accumulate)
//
// op(A) is A (m x k, row stride lda) or, when trans_a, Aᵀ where A is stored k x m (row
// stride lda); likewise for B. Every output element is summed by one thread in a fixed order,
// so results do not depend on the number of threads.
#pragma once

#include <cstdint>

namespace atencion {

struct GemmShape {
  int64_t m, n, k;
  bool trans_a = false, trans_b = false;
  int64_t lda, ldb, ldc;
};

// The readable triple loop: the reference the fast kernel is tested against.
void gemm_reference(const GemmShape& s, const float* a, const float* b, float* c, bool accumulate);
void gemm_reference(const GemmShape& s, const double* a, const double* b, double* c,
                    bool accumulate);

// The fast kernel: blocked, packed, register-tiled, OpenMP over output tiles.
void gemm(const GemmShape& s, const float* a, const float* b, float* c, bool accumulate);
void gemm(const GemmShape& s, const double* a, const double* b, double* c, bool accumulate);

// `batch` independent products with element strides between consecutive A, B and C matrices
// (a stride of 0 broadcasts one matrix over the batch). Threads split the batch and tiles.
void gemm_batched(const GemmShape& s, int64_t batch, const float* a, int64_t stride_a,
                  const float* b, int64_t stride_b, float* c, int64_t stride_c, bool accumulate);
void gemm_batched(const GemmShape& s, int64_t batch, const double* a, int64_t stride_a,
                  const double* b, int64_t stride_b, double* c, int64_t stride_c,
                  bool accumulate);

// `batch` products whose matrices lie at element offsets offsets_x[i] from a, b and c (the batch
// dims of a tensor that do not merge into one stride, e.g. heads split from features by a
// view and a transpose). Every offsets_c[i] is a different C. Threads split the batch as above.
void gemm_batched_at(const GemmShape& s, int64_t batch, const float* a,
                     const int64_t* offsets_a, const float* b, const int64_t* offsets_b,
                     float* c, const int64_t* offsets_c, bool accumulate);
void gemm_batched_at(const GemmShape& s, int64_t batch, const double* a,
                     const int64_t* offsets_a, const double* b, const int64_t* offsets_b,
                     double* c, const int64_t* offsets_c, bool accumulate);

}  // namespace atencion

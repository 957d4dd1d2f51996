// tensor/gemm_bfloat16.h — x·Wᵀ with the weights W stored as bfloat16, for inference: the
// product a decoding GPT spends its time in, reading half the bytes of a float32 W.
// Lesson: docs/performance.md#bfloat16-weights
//
//   C[m, n] (+)= op(A)[m, k] · Wᵀ        W [n, k] as bfloat16 bits (tensor/half.h), A and C float32
//
// W is a BFloat16Matrix (tensor/bfloat16_matrix.h): its bits in panels of 64 rows. Each weight
// is widened to the float32 it stands for (exactly: bfloat16_to_float appends 16 zero bits) and
// the sum runs in float32, as gemm() sums: C gets the same bits as gemm() of A and the widened W
// (trans_b), whatever the number of threads. One row (decoding a token) reads the panels once,
// one stream, two bytes a weight, the threads splitting the panels (tensor/gemm_row_avx2.cpp);
// more rows (a prompt, a batch) widen W a tile of outputs at a time and multiply each tile with
// gemm's kernel, one tile per task.
//
// The one-row kernel needs AVX2 and FMA (the widening is a zero-extend and a shift, AVX2's; no
// F16C or AVX-512 BF16 is needed): on a CPU without them the product is refused, in one line
// (check_bfloat16_support), rather than run slower than the float32 model it stands in for.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "tensor/bfloat16_matrix.h"
#include "tensor/gemm.h"

namespace atencion {

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
};

// The running CPU's, read once; none with ATENCION_GEMM_KERNEL=generic (as gemm's kernels:
// tests and benchmarks of the fallback).
CpuFeatures cpu_features();

// Throws std::runtime_error "<operation>: bfloat16 weights need a CPU with AVX2 and FMA (this
// one lacks AVX2, FMA)" when `cpu` lacks either.
void check_bfloat16_support(const std::string& operation, const CpuFeatures& cpu = cpu_features());

// The readable reference: every value of W widened, then gemm_reference. s.trans_b must be set,
// s.n and s.k W's rows and columns (s.ldb is not read); std::invalid_argument otherwise.
void gemm_bfloat16_reference(const GemmShape& s, const float* a, const BFloat16Matrix& w,
                             float* c, bool accumulate);

// The fast product, as described above, the same shape. Refused (check_bfloat16_support) on a
// CPU without AVX2 and FMA.
void gemm_bfloat16(const GemmShape& s, const float* a, const BFloat16Matrix& w, float* c,
                   bool accumulate);
// One row of A (a_step between its values) times several W_m with as many columns each (a
// layer's Q, K and V weights, read for the same token): c[m] gets what gemm_bfloat16 gives for
// W_m, the same bits, in one product whose threads split all the panels together, waking and
// waiting once (std::logic_error when the counts or the columns differ).
void gemm_bfloat16_row_many(const float* a, int64_t a_step,
                            std::span<const BFloat16Matrix* const> w, std::span<float* const> c,
                            bool accumulate);

}  // namespace atencion

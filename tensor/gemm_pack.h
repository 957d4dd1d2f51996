// tensor/gemm_pack.h — copying blocks of op(A) and op(B) into the panel layout the
// micro-kernel reads (internal to tensor/). Lesson: docs/performance.md#packing
//
// Packing reads each block of the operands once, applies the transpose, and lays the values
// out in the order the micro-kernel consumes them, contiguous and aligned, zero-padded to whole
// panels. A·Bᵀ and Aᵀ·B therefore cost the same as A·B: the transpose happens here, one block
// at a time, and never on a whole-matrix copy.
#pragma once

#include <cstdint>

#include "tensor/gemm.h"

namespace atencion::gemm_detail {

// Rows [row0, row0 + rows) and columns [p0, p0 + kc) of op(A), as panels of mr rows:
//   panel q, step p, lane r  =  op(A)[row0 + q*mr + r, p0 + p]   at dst[q*mr*kc + p*mr + r].
template <typename T>
void pack_a(const GemmShape& s, const T* a, int64_t row0, int64_t rows, int64_t p0, int64_t kc,
            int mr, T* dst);

// Rows [p0, p0 + kc) and columns [col0, col0 + cols) of op(B), as panels of nr columns:
//   panel q, step p, lane j  =  op(B)[p0 + p, col0 + q*nr + j]   at dst[q*nr*kc + p*nr + j].
template <typename T>
void pack_b(const GemmShape& s, const T* b, int64_t p0, int64_t kc, int64_t col0, int64_t cols,
            int nr, T* dst);

}  // namespace atencion::gemm_detail

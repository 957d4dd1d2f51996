// tensor/gemm_pack.cpp — packing blocks of op(A) and op(B) into micro-kernel panels
// (see tensor/gemm_pack.h). Lesson: docs/performance.md#packing
#include "tensor/gemm_pack.h"

#include <algorithm>

namespace atencion::gemm_detail {

template <typename T>
void pack_a(const GemmShape& s, const T* a, int64_t row0, int64_t rows, int64_t p0, int64_t kc,
            int mr, T* dst) {
  for (int64_t panel = 0; panel < rows; panel += mr, dst += mr * kc) {
    const int panel_rows = static_cast<int>(std::min<int64_t>(mr, rows - panel));
    if (panel_rows < mr) std::fill(dst, dst + mr * kc, T(0));
    if (s.trans_a) {
      // op(A)[i, p] = A[p, i]: row p of A holds the panel's lanes side by side.
      for (int64_t p = 0; p < kc; ++p) {
        const T* src = a + (p0 + p) * s.lda + row0 + panel;
        for (int r = 0; r < panel_rows; ++r) dst[p * mr + r] = src[r];
      }
    } else {
      // op(A)[i, p] = A[i, p]: walk each row of A and scatter it into its lane.
      for (int r = 0; r < panel_rows; ++r) {
        const T* src = a + (row0 + panel + r) * s.lda + p0;
        for (int64_t p = 0; p < kc; ++p) dst[p * mr + r] = src[p];
      }
    }
  }
}

template <typename T>
void pack_b(const GemmShape& s, const T* b, int64_t p0, int64_t kc, int64_t col0, int64_t cols,
            int nr, T* dst) {
  for (int64_t panel = 0; panel < cols; panel += nr, dst += nr * kc) {
    const int panel_cols = static_cast<int>(std::min<int64_t>(nr, cols - panel));
    if (panel_cols < nr) std::fill(dst, dst + nr * kc, T(0));
    if (s.trans_b) {
      // op(B)[p, j] = B[j, p]: each row of B becomes one lane of the panel.
      for (int j = 0; j < panel_cols; ++j) {
        const T* src = b + (col0 + panel + j) * s.ldb + p0;
        for (int64_t p = 0; p < kc; ++p) dst[p * nr + j] = src[p];
      }
    } else {
      // op(B)[p, j] = B[p, j]: a panel row is a contiguous piece of a row of B.
      for (int64_t p = 0; p < kc; ++p) {
        const T* src = b + (p0 + p) * s.ldb + col0 + panel;
        std::copy(src, src + panel_cols, dst + p * nr);
      }
    }
  }
}

template void pack_a(const GemmShape&, const float*, int64_t, int64_t, int64_t, int64_t, int,
                     float*);
template void pack_a(const GemmShape&, const double*, int64_t, int64_t, int64_t, int64_t, int,
                     double*);
template void pack_b(const GemmShape&, const float*, int64_t, int64_t, int64_t, int64_t, int,
                     float*);
template void pack_b(const GemmShape&, const double*, int64_t, int64_t, int64_t, int64_t, int,
                     double*);

}  // namespace atencion::gemm_detail

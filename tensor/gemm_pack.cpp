// tensor/gemm_pack.cpp — packing blocks of op(A) and op(B) into micro-kernel panels
// (see tensor/gemm_pack.h). Lesson: docs/performance.md#packing
//
// The panel width is a template parameter (one instantiation per kernel's mr and nr), so the
// inner loops have a fixed length that the compiler unrolls and vectorises.
#include "tensor/gemm_pack.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace atencion::gemm_detail {
namespace {

// Copies `count` values that sit `stride` apart in `src` into consecutive places of `dst`,
// WIDTH at a time: row p of a panel from WIDTH rows of a row-major matrix.
template <typename T, int WIDTH>
void gather_columns(const T* src, int64_t stride, int64_t kc, T* dst) {
  for (int64_t p = 0; p < kc; ++p)
#pragma GCC unroll 32
    for (int lane = 0; lane < WIDTH; ++lane) dst[p * WIDTH + lane] = src[lane * stride + p];
}

// One panel of WIDTH lanes over kc steps:  dst[p * WIDTH + lane] = M[lane, p], where M[lane, p]
// is `src[lane * lane_stride + p * step_stride]`; lanes >= lanes_used are zero.
template <typename T, int WIDTH>
void pack_panel(const T* src, int64_t lane_stride, int64_t step_stride, int lanes_used,
                int64_t kc, T* dst) {
  if (lanes_used == WIDTH && step_stride == 1) {
    gather_columns<T, WIDTH>(src, lane_stride, kc, dst);  // lanes are rows of the matrix
    return;
  }
  if (lanes_used == WIDTH && lane_stride == 1) {
    // Lanes are contiguous: WIDTH values straight across per step. A fixed-length loop that the
    // compiler turns into a few vector moves (std::copy became a memmove call per step).
    for (int64_t p = 0; p < kc; ++p)
#pragma GCC unroll 32
      for (int lane = 0; lane < WIDTH; ++lane) dst[p * WIDTH + lane] = src[p * step_stride + lane];
    return;
  }
  // The last, partial panel: zero padding after the used lanes.
  for (int64_t p = 0; p < kc; ++p)
    for (int lane = 0; lane < WIDTH; ++lane)
      dst[p * WIDTH + lane] =
          lane < lanes_used ? src[lane * lane_stride + p * step_stride] : T(0);
}

template <typename T, int WIDTH>
void pack_panels(const T* src, int64_t lane_stride, int64_t step_stride, int64_t lanes,
                 int64_t kc, T* dst) {
  for (int64_t first = 0; first < lanes; first += WIDTH, dst += WIDTH * kc) {
    const int used = static_cast<int>(std::min<int64_t>(WIDTH, lanes - first));
    pack_panel<T, WIDTH>(src + first * lane_stride, lane_stride, step_stride, used, kc, dst);
  }
}

// Calls pack_panels with the panel width as a compile-time constant.
template <typename T>
void pack_any_width(int width, const T* src, int64_t lane_stride, int64_t step_stride,
                    int64_t lanes, int64_t kc, T* dst) {
  switch (width) {
    case 4: return pack_panels<T, 4>(src, lane_stride, step_stride, lanes, kc, dst);
    case 6: return pack_panels<T, 6>(src, lane_stride, step_stride, lanes, kc, dst);
    case 8: return pack_panels<T, 8>(src, lane_stride, step_stride, lanes, kc, dst);
    case 14: return pack_panels<T, 14>(src, lane_stride, step_stride, lanes, kc, dst);
    case 16: return pack_panels<T, 16>(src, lane_stride, step_stride, lanes, kc, dst);
    case 32: return pack_panels<T, 32>(src, lane_stride, step_stride, lanes, kc, dst);
    default:
      throw std::logic_error("gemm: no packing routine for panels of width " +
                             std::to_string(width));
  }
}

}  // namespace

// op(A)[i, p] is A[i, p] (lanes are rows of A) or, when transposed, A[p, i] (lanes side by side).
template <typename T>
void pack_a(const GemmShape& s, const T* a, int64_t row0, int64_t rows, int64_t p0, int64_t kc,
            int mr, T* dst) {
  if (s.trans_a)
    pack_any_width(mr, a + p0 * s.lda + row0, 1, s.lda, rows, kc, dst);
  else
    pack_any_width(mr, a + row0 * s.lda + p0, s.lda, 1, rows, kc, dst);
}

// op(B)[p, j] is B[p, j] (lanes side by side) or, when transposed, B[j, p] (lanes are rows of B).
template <typename T>
void pack_b(const GemmShape& s, const T* b, int64_t p0, int64_t kc, int64_t col0, int64_t cols,
            int nr, T* dst) {
  if (s.trans_b)
    pack_any_width(nr, b + col0 * s.ldb + p0, s.ldb, 1, cols, kc, dst);
  else
    pack_any_width(nr, b + p0 * s.ldb + col0, 1, s.ldb, cols, kc, dst);
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

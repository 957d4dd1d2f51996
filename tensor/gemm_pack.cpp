// tensor/gemm_pack.cpp — packing blocks of op(A) and op(B) into micro-kernel panels
// (see tensor/gemm_pack.h). Lesson: docs/performance.md#packing
//
// A panel is WIDTH lanes by kc steps, stored step after step: dst[p * WIDTH + lane]. The source
// holds the same values in one of two ways, and each gets a loop shaped for it:
//
//   lanes side by side (A transposed, B as stored): a panel step is WIDTH consecutive values of
//     one source row, a fixed-size copy. Panel after panel (pack_panel_by_panel) when source
//     rows are close together; when each row is a page or more from the next (the Aᵀ of a
//     weight gradient: 4 KB to 32 KB), walking one panel jumps a page per step, which no
//     prefetcher follows, so pack_rows_across copies source row after source row instead, each
//     read once from start to end across all panels of the block (measured on 672 x 256 blocks
//     of a 2048 x 8000 Aᵀ: 0.7 ns per value instead of 1.7).
//   lanes are source rows (A as stored, B transposed): a panel step is one value from each of
//     WIDTH rows. pack_transposed reads each row 4 values at a time and transposes 4 x 4 blocks
//     in SSE registers (SSE is part of baseline x86-64), writing 4 lanes of 4 panel steps per
//     block, instead of one scalar load per value.
//
// The panel width is a template parameter (one instantiation per kernel's mr and nr), so the
// inner loops have a fixed length that the compiler unrolls and vectorises. Packing only moves
// values: the packed panels, hence the products, are the same bits whichever loop wrote them.
#include "tensor/gemm_pack.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace atencion::gemm_detail {
namespace {

// ---- lanes side by side: dst panel q, step p, lane j = src[p * step_stride + q * WIDTH + j] --

// One panel after another, step after step: the order that keeps the writes in one panel and
// that is fastest while the source rows sit in the caches. A partial last panel is zero-padded.
// Each copy is a memcpy of a fixed size, which the compiler turns into a few vector moves (a
// loop of element copies stayed scalar: it cannot rule out that src and dst overlap).
template <typename T, int WIDTH>
void pack_panel_by_panel(const T* src, int64_t step_stride, int64_t lanes, int64_t kc,
                         T* dst) {
  for (int64_t first = 0; first < lanes; first += WIDTH, dst += WIDTH * kc) {
    const int used = static_cast<int>(std::min<int64_t>(WIDTH, lanes - first));
    const T* lane0 = src + first;
    if (used == WIDTH) {
      for (int64_t p = 0; p < kc; ++p)
        std::memcpy(dst + p * WIDTH, lane0 + p * step_stride, WIDTH * sizeof(T));
      continue;
    }
    for (int64_t p = 0; p < kc; ++p) {
      std::memcpy(dst + p * WIDTH, lane0 + p * step_stride, used * sizeof(T));
      std::fill(dst + p * WIDTH + used, dst + (p + 1) * WIDTH, T(0));
    }
  }
}

// All panels of a block whose lanes lie side by side in the source rows. For each step p (one
// source row), the row's `lanes` values are copied WIDTH at a time into the panels; the last,
// partial panel is zero-padded.
template <typename T, int WIDTH>
void pack_rows_across(const T* src, int64_t step_stride, int64_t lanes, int64_t kc, T* dst) {
  const int64_t full_panels = lanes / WIDTH;
  const int last_used = static_cast<int>(lanes - full_panels * WIDTH);
  const int64_t panel_size = WIDTH * kc;
  for (int64_t p = 0; p < kc; ++p) {
    const T* row = src + p * step_stride;
    T* step = dst + p * WIDTH;
    for (int64_t q = 0; q < full_panels; ++q)
      std::memcpy(step + q * panel_size, row + q * WIDTH, WIDTH * sizeof(T));
    if (last_used > 0) {
      T* last = step + full_panels * panel_size;
      std::memcpy(last, row + full_panels * WIDTH, last_used * sizeof(T));
      std::fill(last + last_used, last + WIDTH, T(0));
    }
  }
}

// ---- lanes are source rows: dst[p * WIDTH + lane] = src[lane * stride + p] ------------------

// dst[p * WIDTH + lane] = src[lane * stride + p] for `lanes` lanes and `steps` steps, one value
// at a time: the edges that the 4 x 4 blocks below do not cover, and every width for doubles
// (not on the training path), row by row so that the reads are contiguous.
template <typename T, int WIDTH>
void transpose_scalar(const T* src, int64_t stride, int lanes, int64_t steps, T* dst) {
  for (int lane = 0; lane < lanes; ++lane)
    for (int64_t p = 0; p < steps; ++p) dst[p * WIDTH + lane] = src[lane * stride + p];
}

#if defined(__SSE2__)
// One panel of floats whose lanes are source rows; lanes >= used must already be zero. For
// every 4 steps: 4 x 4 blocks (4 rows, 4 consecutive values of each) transposed in registers;
// then a 2-row block (the last two lanes of the 14- and 6-wide A panels) as 2 x 4; then a
// last odd lane and the last kc % 4 steps one value at a time.
template <int WIDTH>
void pack_transposed_float(const float* src, int64_t stride, int used, int64_t kc,
                           float* dst) {
  const int64_t kc4 = kc / 4 * 4;
  const int lanes4 = used / 4 * 4;
  const bool pair = used - lanes4 >= 2;
  for (int64_t p = 0; p < kc4; p += 4) {
    float* out = dst + p * WIDTH;
    for (int lane = 0; lane < lanes4; lane += 4) {
      const float* in = src + lane * stride + p;
      __m128 row0 = _mm_loadu_ps(in), row1 = _mm_loadu_ps(in + stride);
      __m128 row2 = _mm_loadu_ps(in + 2 * stride), row3 = _mm_loadu_ps(in + 3 * stride);
      _MM_TRANSPOSE4_PS(row0, row1, row2, row3);  // now rowN holds step p + N of the 4 lanes
      _mm_storeu_ps(out + lane, row0);
      _mm_storeu_ps(out + WIDTH + lane, row1);
      _mm_storeu_ps(out + 2 * WIDTH + lane, row2);
      _mm_storeu_ps(out + 3 * WIDTH + lane, row3);
    }
    if (pair) {
      const float* in = src + lanes4 * stride + p;
      const __m128 row0 = _mm_loadu_ps(in), row1 = _mm_loadu_ps(in + stride);
      const __m128 steps01 = _mm_unpacklo_ps(row0, row1);  // (p, p) (p+1, p+1) of lanes 0, 1
      const __m128 steps23 = _mm_unpackhi_ps(row0, row1);
      _mm_storel_pi(reinterpret_cast<__m64*>(out + lanes4), steps01);
      _mm_storeh_pi(reinterpret_cast<__m64*>(out + WIDTH + lanes4), steps01);
      _mm_storel_pi(reinterpret_cast<__m64*>(out + 2 * WIDTH + lanes4), steps23);
      _mm_storeh_pi(reinterpret_cast<__m64*>(out + 3 * WIDTH + lanes4), steps23);
    }
  }
  const int done = lanes4 + (pair ? 2 : 0);
  transpose_scalar<float, WIDTH>(src + done * stride, stride, used - done, kc4, dst + done);
  transpose_scalar<float, WIDTH>(src + kc4, stride, used, kc - kc4, dst + kc4 * WIDTH);
}

#endif

// One panel whose lanes are source rows (lanes >= used already zero): floats take the SSE
// version above where the compiler targets SSE2 (every x86-64), the rest the scalar loop.
template <typename T, int WIDTH>
void pack_transposed(const T* src, int64_t stride, int used, int64_t kc, T* dst) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, float>) {
    pack_transposed_float<WIDTH>(src, stride, used, kc, dst);
    return;
  }
#endif
  transpose_scalar<T, WIDTH>(src, stride, used, kc, dst);
}

// All panels of a block whose lanes are source rows, WIDTH rows per panel. A partial last
// panel is zeroed first and then gets its used lanes.
template <typename T, int WIDTH>
void pack_rows_down(const T* src, int64_t stride, int64_t lanes, int64_t kc, T* dst) {
  for (int64_t first = 0; first < lanes; first += WIDTH, dst += WIDTH * kc) {
    const int used = static_cast<int>(std::min<int64_t>(WIDTH, lanes - first));
    if (used < WIDTH) std::fill(dst, dst + WIDTH * kc, T(0));
    pack_transposed<T, WIDTH>(src + first * stride, stride, used, kc, dst);
  }
}

template <typename T, int WIDTH>
void pack_panels(const T* src, int64_t lane_stride, int64_t step_stride, int64_t lanes,
                 int64_t kc, T* dst) {
  constexpr int64_t page = 4096;
  if (lane_stride == 1 && step_stride * int64_t(sizeof(T)) >= page)
    pack_rows_across<T, WIDTH>(src, step_stride, lanes, kc, dst);
  else if (lane_stride == 1)
    pack_panel_by_panel<T, WIDTH>(src, step_stride, lanes, kc, dst);
  else
    pack_rows_down<T, WIDTH>(src, lane_stride, lanes, kc, dst);  // step_stride is 1
}

// Calls pack_panels with the panel width as a compile-time constant. M[lane, p] is
// src[lane * lane_stride + p * step_stride], and one of the two strides is 1.
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

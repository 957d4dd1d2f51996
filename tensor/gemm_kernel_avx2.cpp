// tensor/gemm_kernel_avx2.cpp — the AVX2 + FMA micro-kernel (see tensor/gemm_kernel.h), for CPUs
// without AVX-512. Lesson: docs/performance.md#the-micro-kernel
//
// Same scheme as tensor/gemm_kernel_avx512.cpp with 8-float (4-double) vectors and 16 ymm
// registers: a 6 x 16 float tile (6 x 8 doubles) is 12 accumulators, 2 B vectors and one
// broadcast. Only functions marked ATENCION_AVX2_TARGET use AVX2; gemm.cpp calls them only
// when the CPU has it.
#include <immintrin.h>

#include <cstdint>
#include <utility>

#include "tensor/gemm_kernel.h"

#define ATENCION_AVX2_TARGET __attribute__((target("avx2,fma")))

namespace atencion::gemm_detail {
namespace {

struct Lanes256f {
  using T = float;
  using V = __m256;
  static constexpr int width = 8;
  ATENCION_AVX2_TARGET static V zero() { return _mm256_setzero_ps(); }
  ATENCION_AVX2_TARGET static V load(const T* p) { return _mm256_load_ps(p); }
  ATENCION_AVX2_TARGET static V loadu(const T* p) { return _mm256_loadu_ps(p); }
  ATENCION_AVX2_TARGET static void storeu(T* p, V v) { _mm256_storeu_ps(p, v); }
  // The first `left` (< 8) lanes of v to p: 4, 2 and 1 lanes at a time.
  ATENCION_AVX2_TARGET static void store_first(T* p, int left, V v) {
    __m128 part = _mm256_castps256_ps128(v);
    if (left >= 4) {
      _mm_storeu_ps(p, part);
      part = _mm256_extractf128_ps(v, 1);
      p += 4, left -= 4;
    }
    if (left >= 2) {
      _mm_storel_pi(reinterpret_cast<__m64*>(p), part);
      part = _mm_movehl_ps(part, part);
      p += 2, left -= 2;
    }
    if (left >= 1) _mm_store_ss(p, part);
  }
  ATENCION_AVX2_TARGET static V broadcast(const T* p) { return _mm256_broadcast_ss(p); }
  ATENCION_AVX2_TARGET static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  ATENCION_AVX2_TARGET static V add(V a, V b) { return _mm256_add_ps(a, b); }
  // Lane i is on when i < left (a 32-bit all-ones per active lane).
  ATENCION_AVX2_TARGET static __m256i mask(int left) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  ATENCION_AVX2_TARGET static V load_masked(__m256i m, const T* p) {
    return _mm256_maskload_ps(p, m);
  }
};

struct Lanes256d {
  using T = double;
  using V = __m256d;
  static constexpr int width = 4;
  ATENCION_AVX2_TARGET static V zero() { return _mm256_setzero_pd(); }
  ATENCION_AVX2_TARGET static V load(const T* p) { return _mm256_load_pd(p); }
  ATENCION_AVX2_TARGET static V loadu(const T* p) { return _mm256_loadu_pd(p); }
  ATENCION_AVX2_TARGET static void storeu(T* p, V v) { _mm256_storeu_pd(p, v); }
  ATENCION_AVX2_TARGET static void store_first(T* p, int left, V v) {  // left < 4
    __m128d part = _mm256_castpd256_pd128(v);
    if (left >= 2) {
      _mm_storeu_pd(p, part);
      part = _mm256_extractf128_pd(v, 1);
      p += 2, left -= 2;
    }
    if (left >= 1) _mm_store_sd(p, part);
  }
  ATENCION_AVX2_TARGET static V broadcast(const T* p) { return _mm256_broadcast_sd(p); }
  ATENCION_AVX2_TARGET static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  ATENCION_AVX2_TARGET static V add(V a, V b) { return _mm256_add_pd(a, b); }
  ATENCION_AVX2_TARGET static __m256i mask(int left) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  ATENCION_AVX2_TARGET static V load_masked(__m256i m, const T* p) {
    return _mm256_maskload_pd(p, m);
  }
};

// C[0:ROWS, 0:cols] (+)= acc. No masked stores: they are microcoded on AMD cores (a dozen
// cycles each, measured: a 32 x 32 product took 1.28 µs with them, 0.80 µs without); a vector
// past `cols` is stored in parts of 4, 2 and 1 lanes.
template <typename L, int VECTORS, int ROWS>
ATENCION_AVX2_TARGET inline void store_tile(const typename L::V (&acc)[ROWS][VECTORS],
                                            typename L::T* c, int64_t ldc, int cols,
                                            bool accumulate) {
#pragma GCC unroll 4
  for (int v = 0; v < VECTORS; ++v) {
    const int left = cols - v * L::width;
    if (left >= L::width) {
#pragma GCC unroll 16
      for (int r = 0; r < ROWS; ++r) {
        typename L::T* out = c + r * ldc + v * L::width;
        L::storeu(out, accumulate ? L::add(L::loadu(out), acc[r][v]) : acc[r][v]);
      }
    } else if (left > 0) {
      const __m256i mask = L::mask(left);
#pragma GCC unroll 16
      for (int r = 0; r < ROWS; ++r) {
        typename L::T* out = c + r * ldc + v * L::width;
        L::store_first(out, left,
                       accumulate ? L::add(L::load_masked(mask, out), acc[r][v]) : acc[r][v]);
      }
    }
  }
}

// C[0:ROWS, 0:cols] (+)= a_panel (ROWS of MR) x b_panel (VECTORS * width columns).
template <typename L, int MR, int VECTORS, int ROWS>
ATENCION_AVX2_TARGET void tile(int64_t k, const typename L::T* a_panel,
                               const typename L::T* b_panel, typename L::T* c, int64_t ldc,
                               int cols, bool accumulate) {
  constexpr int NR = VECTORS * L::width;
  typename L::V acc[ROWS][VECTORS];
#pragma GCC unroll 16
  for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < VECTORS; ++v) acc[r][v] = L::zero();

  for (int64_t p = 0; p < k; ++p) {
    typename L::V b_row[VECTORS];
#pragma GCC unroll 4
    for (int v = 0; v < VECTORS; ++v) b_row[v] = L::load(b_panel + v * L::width);
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r) {
      const typename L::V a_value = L::broadcast(a_panel + r);
#pragma GCC unroll 4
      for (int v = 0; v < VECTORS; ++v) acc[r][v] = L::fma(a_value, b_row[v], acc[r][v]);
    }
    a_panel += MR;
    b_panel += NR;
  }

  store_tile<L, VECTORS, ROWS>(acc, c, ldc, cols, accumulate);
}

// The tile from unpacked operands (gemm_kernel.h's DirectTileFunction): the same sums, with
// A's values broadcast from where they are stored and B's rows loaded from theirs; with
// PARTIAL, the last vector of each B row is a masked load (no read past column `cols`).
template <typename L, int VECTORS, int ROWS, bool PARTIAL>
ATENCION_AVX2_TARGET void direct_tile(int64_t k, const typename L::T* a, int64_t a_row_stride,
                                      int64_t a_step_stride, const typename L::T* b, int64_t ldb,
                                      typename L::T* c, int64_t ldc, int cols, bool accumulate) {
  const __m256i last_mask = L::mask(cols - (VECTORS - 1) * L::width);
  typename L::V acc[ROWS][VECTORS];
#pragma GCC unroll 16
  for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < VECTORS; ++v) acc[r][v] = L::zero();

  for (int64_t p = 0; p < k; ++p) {
    typename L::V b_row[VECTORS];
#pragma GCC unroll 4
    for (int v = 0; v < VECTORS; ++v)
      b_row[v] = PARTIAL && v == VECTORS - 1 ? L::load_masked(last_mask, b + v * L::width)
                                             : L::loadu(b + v * L::width);
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r) {
      const typename L::V a_value = L::broadcast(a + r * a_row_stride);
#pragma GCC unroll 4
      for (int v = 0; v < VECTORS; ++v) acc[r][v] = L::fma(a_value, b_row[v], acc[r][v]);
    }
    a += a_step_stride;
    b += ldb;
  }

  store_tile<L, VECTORS, ROWS>(acc, c, ldc, cols, accumulate);
}

template <typename L, int MR, int VECTORS, std::size_t... Rows>
void fill(MicroKernel<typename L::T>& out, std::index_sequence<Rows...>) {
  out.name = "avx2";
  out.mr = MR;
  out.nr = VECTORS * L::width;
  ((out.tile[Rows] = &tile<L, MR, VECTORS, static_cast<int>(Rows) + 1>), ...);
  out.width = L::width;
  static_assert(VECTORS == 2);
  ((out.direct[0][Rows][0] = &direct_tile<L, 1, static_cast<int>(Rows) + 1, false>), ...);
  ((out.direct[0][Rows][1] = &direct_tile<L, 1, static_cast<int>(Rows) + 1, true>), ...);
  ((out.direct[1][Rows][0] = &direct_tile<L, 2, static_cast<int>(Rows) + 1, false>), ...);
  ((out.direct[1][Rows][1] = &direct_tile<L, 2, static_cast<int>(Rows) + 1, true>), ...);
}

bool cpu_has_avx2() {
#if defined(__GNUC__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

}  // namespace

bool avx2_kernel(MicroKernel<float>& out) {
  if (!cpu_has_avx2()) return false;
  fill<Lanes256f, 6, 2>(out, std::make_index_sequence<6>{});
  out.row = &avx2_row_product;
  return true;
}

bool avx2_kernel(MicroKernel<double>& out) {
  if (!cpu_has_avx2()) return false;
  fill<Lanes256d, 6, 2>(out, std::make_index_sequence<6>{});
  return true;
}

}  // namespace atencion::gemm_detail

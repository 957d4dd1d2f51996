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
  ATENCION_AVX2_TARGET static void store_masked(T* p, __m256i m, V v) {
    _mm256_maskstore_ps(p, m, v);
  }
};

struct Lanes256d {
  using T = double;
  using V = __m256d;
  static constexpr int width = 4;
  ATENCION_AVX2_TARGET static V zero() { return _mm256_setzero_pd(); }
  ATENCION_AVX2_TARGET static V load(const T* p) { return _mm256_load_pd(p); }
  ATENCION_AVX2_TARGET static V broadcast(const T* p) { return _mm256_broadcast_sd(p); }
  ATENCION_AVX2_TARGET static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  ATENCION_AVX2_TARGET static V add(V a, V b) { return _mm256_add_pd(a, b); }
  ATENCION_AVX2_TARGET static __m256i mask(int left) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  ATENCION_AVX2_TARGET static V load_masked(__m256i m, const T* p) {
    return _mm256_maskload_pd(p, m);
  }
  ATENCION_AVX2_TARGET static void store_masked(T* p, __m256i m, V v) {
    _mm256_maskstore_pd(p, m, v);
  }
};

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

  __m256i mask[VECTORS];
#pragma GCC unroll 4
  for (int v = 0; v < VECTORS; ++v) mask[v] = L::mask(cols - v * L::width);
#pragma GCC unroll 16
  for (int r = 0; r < ROWS; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < VECTORS; ++v) {
      typename L::T* out = c + r * ldc + v * L::width;
      typename L::V value = acc[r][v];
      if (accumulate) value = L::add(L::load_masked(mask[v], out), value);
      L::store_masked(out, mask[v], value);
    }
  }
}

template <typename L, int MR, int VECTORS, std::size_t... Rows>
void fill(MicroKernel<typename L::T>& out, std::index_sequence<Rows...>) {
  out.name = "avx2";
  out.mr = MR;
  out.nr = VECTORS * L::width;
  ((out.tile[Rows] = &tile<L, MR, VECTORS, static_cast<int>(Rows) + 1>), ...);
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
  return true;
}

bool avx2_kernel(MicroKernel<double>& out) {
  if (!cpu_has_avx2()) return false;
  fill<Lanes256d, 6, 2>(out, std::make_index_sequence<6>{});
  return true;
}

}  // namespace atencion::gemm_detail

// tensor/gemm_kernel_avx512.cpp — the AVX-512 micro-kernel (see tensor/gemm_kernel.h).
// Lesson: docs/performance.md#the-micro-kernel
//
// The tile of C lives in registers: ROWS x VECTORS accumulators of 16 floats (8 doubles).
// Each step p loads VECTORS vectors of the B panel once, broadcasts each of the ROWS values of
// the A panel, and issues ROWS x VECTORS fused multiply-adds. 14 x 2 accumulators (a 14 x 32
// float tile) use 28 of the 32 zmm registers and give the two FMA units enough independent
// chains to hide their latency.
//
// Only the functions marked ATENCION_AVX512_TARGET use AVX-512 (a function-level target
// attribute, so the rest of the library is built for the baseline CPU), and gemm.cpp calls
// them only when the CPU has it: the library still runs on CPUs without AVX-512.
#include <immintrin.h>

#include <cstdint>
#include <utility>

#include "tensor/gemm_kernel.h"

#define ATENCION_AVX512_TARGET __attribute__((target("avx512f,avx512vl,avx512dq,fma,avx2,bmi2")))

namespace atencion::gemm_detail {
namespace {

// The few intrinsics the kernel needs, for both element types.
struct Lanes512f {
  using T = float;
  using V = __m512;
  static constexpr int width = 16;
  ATENCION_AVX512_TARGET static V zero() { return _mm512_setzero_ps(); }
  ATENCION_AVX512_TARGET static V load(const T* p) { return _mm512_load_ps(p); }
  ATENCION_AVX512_TARGET static V loadu(const T* p) { return _mm512_loadu_ps(p); }
  ATENCION_AVX512_TARGET static V broadcast(const T* p) { return _mm512_set1_ps(*p); }
  ATENCION_AVX512_TARGET static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  ATENCION_AVX512_TARGET static V add(V a, V b) { return _mm512_add_ps(a, b); }
  ATENCION_AVX512_TARGET static V load_masked(__mmask16 m, const T* p) {
    return _mm512_maskz_loadu_ps(m, p);
  }
  ATENCION_AVX512_TARGET static void store_masked(T* p, __mmask16 m, V v) {
    _mm512_mask_storeu_ps(p, m, v);
  }
};

struct Lanes512d {
  using T = double;
  using V = __m512d;
  static constexpr int width = 8;
  ATENCION_AVX512_TARGET static V zero() { return _mm512_setzero_pd(); }
  ATENCION_AVX512_TARGET static V load(const T* p) { return _mm512_load_pd(p); }
  ATENCION_AVX512_TARGET static V loadu(const T* p) { return _mm512_loadu_pd(p); }
  ATENCION_AVX512_TARGET static V broadcast(const T* p) { return _mm512_set1_pd(*p); }
  ATENCION_AVX512_TARGET static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  ATENCION_AVX512_TARGET static V add(V a, V b) { return _mm512_add_pd(a, b); }
  ATENCION_AVX512_TARGET static V load_masked(__mmask16 m, const T* p) {
    return _mm512_maskz_loadu_pd(static_cast<__mmask8>(m), p);
  }
  ATENCION_AVX512_TARGET static void store_masked(T* p, __mmask16 m, V v) {
    _mm512_mask_storeu_pd(p, static_cast<__mmask8>(m), v);
  }
};

// Columns [0, cols) of `vectors` vectors, as masks (all lanes of a full vector).
template <typename L, int VECTORS>
ATENCION_AVX512_TARGET void column_masks(int cols, __mmask16 (&mask)[VECTORS]) {
#pragma GCC unroll 4
  for (int v = 0; v < VECTORS; ++v) {
    const int left = cols - v * L::width;
    mask[v] = left >= L::width ? __mmask16((1u << L::width) - 1)
              : left <= 0      ? __mmask16(0)
                               : __mmask16((1u << left) - 1);
  }
}

// C[0:ROWS, columns of `mask`] (+)= acc: masked loads and stores, so nothing past the last
// column is read or written (tile and direct_tile end with it).
template <typename L, int VECTORS, int ROWS>
ATENCION_AVX512_TARGET inline void store_tile(const typename L::V (&acc)[ROWS][VECTORS],
                                              const __mmask16 (&mask)[VECTORS],
                                              typename L::T* c, int64_t ldc, bool accumulate) {
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

// C[0:ROWS, 0:cols] (+)= a_panel (ROWS of MR) x b_panel (VECTORS * width columns).
template <typename L, int MR, int VECTORS, int ROWS>
ATENCION_AVX512_TARGET void tile(int64_t k, const typename L::T* a_panel,
                                 const typename L::T* b_panel, typename L::T* c, int64_t ldc,
                                 int cols, bool accumulate) {
  constexpr int NR = VECTORS * L::width;
  // Ask for the C tile now, so it has arrived from memory when the sums are done.
#pragma GCC unroll 16
  for (int r = 0; r < ROWS; ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + NR - 1), _MM_HINT_T0);
  }
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

  // Columns past `cols` are masked off, so a narrow last tile writes straight into C.
  __mmask16 mask[VECTORS];
  column_masks<L, VECTORS>(cols, mask);
  store_tile<L, VECTORS, ROWS>(acc, mask, c, ldc, accumulate);
}

// The tile from unpacked operands (gemm_kernel.h's DirectTileFunction): the same sums, with
// A's values broadcast from where they are stored and B's rows loaded from theirs; with
// PARTIAL, the last vector of each B row is a masked load (no read past column `cols`).
template <typename L, int VECTORS, int ROWS, bool PARTIAL>
ATENCION_AVX512_TARGET void direct_tile(int64_t k, const typename L::T* a, int64_t a_row_stride,
                                        int64_t a_step_stride, const typename L::T* b,
                                        int64_t ldb, typename L::T* c, int64_t ldc, int cols,
                                        bool accumulate) {
  __mmask16 mask[VECTORS];
  column_masks<L, VECTORS>(cols, mask);
  typename L::V acc[ROWS][VECTORS];
#pragma GCC unroll 16
  for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < VECTORS; ++v) acc[r][v] = L::zero();

  for (int64_t p = 0; p < k; ++p) {
    typename L::V b_row[VECTORS];
#pragma GCC unroll 4
    for (int v = 0; v < VECTORS; ++v)
      b_row[v] = PARTIAL && v == VECTORS - 1 ? L::load_masked(mask[v], b + v * L::width)
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

  store_tile<L, VECTORS, ROWS>(acc, mask, c, ldc, accumulate);
}

template <typename L, int MR, int VECTORS, std::size_t... Rows>
void fill(MicroKernel<typename L::T>& out, const char* name, std::index_sequence<Rows...>) {
  out.name = name;
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

bool cpu_has_avx512() {
#if defined(__GNUC__)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

}  // namespace

// Register tiles chosen by measurement (bench/bench_matmul.cpp): 14 x 32 floats, 14 x 16 doubles.
bool avx512_kernel(MicroKernel<float>& out) {
  if (!cpu_has_avx512()) return false;
  fill<Lanes512f, 14, 2>(out, "avx512", std::make_index_sequence<14>{});
  out.row = &avx2_row_product;
  return true;
}

bool avx512_kernel(MicroKernel<double>& out) {
  if (!cpu_has_avx512()) return false;
  fill<Lanes512d, 14, 2>(out, "avx512", std::make_index_sequence<14>{});
  return true;
}

}  // namespace atencion::gemm_detail

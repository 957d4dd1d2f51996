// tensor/gemm_row_avx2.cpp — the product of one row (m = 1), as decoding one token computes
// every layer: C[0, j] (+)= sum_p a[p] · op(B)[p, j]. Lesson: docs/performance.md#one-row-products
//
// With one row of A, each value of B is used once: the product is as fast as B can be read from
// memory, and packing B (a copy, read again) would read it three times over. So B is read where
// it is stored, once, and the threads split the columns of C (tensor/gemm.cpp).
//
// The bits are those of the blocked product and of the direct tiles (gemm_kernel.h): the sum is
// cut into blocks of kc steps as the blocked product cuts it, each block is summed from zero in
// increasing p with one fused multiply-add per step, then added to C (or stored, for the first
// block when not accumulating). A one-row product is then the same as that row of a larger one,
// whatever the number of threads (tests/tensor/test_gemm.cpp).
//
// B as stored ([k, n], a row of B is a row of values for many j): 8 vectors of 8 columns at a
// time, a row of B at a time. Bᵀ as stored ([n, k], x·Wᵀ of a linear layer: the k values of one
// output are contiguous): 16 outputs at a time, 8 steps of each read as 8-float vectors and
// transposed in registers, so that each vector holds one step of 8 outputs. The same loop reads
// a Bᵀ stored as bfloat16 (tensor/gemm_bfloat16.h): 8 steps of an output are 16 bytes, widened
// to 8 floats in registers (a bfloat16 is the top half of a float32: zero-extend each 16-bit
// value to 32 bits, shift it left by 16), then summed as the floats they are, with the same bits
// as the float32 product of the widened matrix.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "tensor/gemm_kernel.h"
#include "tensor/half.h"

#define ATENCION_AVX2_TARGET __attribute__((target("avx2,fma")))

namespace atencion::gemm_detail {
namespace {

// The first `left` of 8 lanes on.
ATENCION_AVX2_TARGET __m256i first_lanes(int left) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// c[0:cols] = acc, or c + acc with `add`; cols <= 8, nothing past it written.
ATENCION_AVX2_TARGET void store_lanes(float* c, __m256 acc, int cols, bool add) {
  if (cols == 8) {
    _mm256_storeu_ps(c, add ? _mm256_add_ps(_mm256_loadu_ps(c), acc) : acc);
    return;
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  for (int i = 0; i < cols; ++i) c[i] = add ? c[i] + lanes[i] : lanes[i];
}

// B as stored: columns [begin, end) of C, 64 at a time (a row of B read 256 bytes at a time).
ATENCION_AVX2_TARGET void row_times_b(const GemmShape& s, const float* a, int64_t a_step,
                                      const float* b, float* c, bool accumulate, int64_t kc,
                                      int64_t begin, int64_t end) {
  constexpr int kVectors = 8;
  for (int64_t j = begin; j < end; j += 8 * kVectors) {
    const int cols = static_cast<int>(std::min<int64_t>(8 * kVectors, end - j));
    const int vectors = (cols + 7) / 8;
    const __m256i last = first_lanes(cols - 8 * (vectors - 1));
    for (int64_t pc = 0; pc < s.k; pc += kc) {
      __m256 acc[kVectors];
      for (int v = 0; v < kVectors; ++v) acc[v] = _mm256_setzero_ps();
      for (int64_t p = pc; p < std::min(s.k, pc + kc); ++p) {
        const __m256 a_value = _mm256_broadcast_ss(a + p * a_step);
        const float* row = b + p * s.ldb + j;
        if (vectors == kVectors && cols == 8 * kVectors) {
#pragma GCC unroll 8
          for (int v = 0; v < kVectors; ++v)
            acc[v] = _mm256_fmadd_ps(a_value, _mm256_loadu_ps(row + 8 * v), acc[v]);
        } else {
          for (int v = 0; v < vectors; ++v) {
            const __m256 x = v == vectors - 1 ? _mm256_maskload_ps(row + 8 * v, last)
                                              : _mm256_loadu_ps(row + 8 * v);
            acc[v] = _mm256_fmadd_ps(a_value, x, acc[v]);
          }
        }
      }
      for (int v = 0; v < vectors; ++v)
        store_lanes(c + j + 8 * v, acc[v], std::min(8, cols - 8 * v), accumulate || pc > 0);
    }
  }
}

// 8 consecutive values of a row of Bᵀ as floats: as stored, or widened from bfloat16 bits.
ATENCION_AVX2_TARGET inline __m256 load8(const float* values) { return _mm256_loadu_ps(values); }
ATENCION_AVX2_TARGET inline __m256 load8(const uint16_t* bits) {
  const __m128i narrow = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bits));
  const __m256i wide = _mm256_cvtepu16_epi32(narrow);
  return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
}
inline float value_of(float value) { return value; }
inline float value_of(uint16_t bits) { return bfloat16_to_float(bits); }

// r[q] lane i <- r[i] lane q: an 8 x 8 transpose in registers.
ATENCION_AVX2_TARGET inline void transpose8(__m256 (&r)[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int h = 0; h < 2; ++h) {  // rows 0-3, then 4-7
    __m256* out = u + 4 * h;
    const __m256* in = t + 4 * h;
    out[0] = _mm256_shuffle_ps(in[0], in[2], _MM_SHUFFLE(1, 0, 1, 0));
    out[1] = _mm256_shuffle_ps(in[0], in[2], _MM_SHUFFLE(3, 2, 3, 2));
    out[2] = _mm256_shuffle_ps(in[1], in[3], _MM_SHUFFLE(1, 0, 1, 0));
    out[3] = _mm256_shuffle_ps(in[1], in[3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int q = 0; q < 4; ++q) {
    r[q] = _mm256_permute2f128_ps(u[q], u[q + 4], 0x20);
    r[q + 4] = _mm256_permute2f128_ps(u[q], u[q + 4], 0x31);
  }
}

// Bᵀ as stored: outputs [begin, end), 16 at a time as two groups of 8 (two independent chains
// of multiply-adds). Past the last output, a group reads the last row again and stores nothing.
// W is float, or uint16_t for bfloat16 bits.
template <typename W>
ATENCION_AVX2_TARGET void row_times_bt(const GemmShape& s, const float* a, int64_t a_step,
                                       const W* b, float* c, bool accumulate, int64_t kc,
                                       int64_t begin, int64_t end) {
  constexpr int kGroups = 2;
  for (int64_t j = begin; j < end; j += 8 * kGroups) {
    const W* rows[8 * kGroups];
    for (int i = 0; i < 8 * kGroups; ++i) rows[i] = b + std::min(j + i, end - 1) * s.ldb;
    for (int64_t pc = 0; pc < s.k; pc += kc) {
      const int64_t block_end = std::min(s.k, pc + kc);
      __m256 acc[kGroups];
      for (int g = 0; g < kGroups; ++g) acc[g] = _mm256_setzero_ps();
      int64_t p = pc;
      for (; p + 8 <= block_end; p += 8) {
#pragma GCC unroll 2
        for (int g = 0; g < kGroups; ++g) {
          __m256 steps[8];
#pragma GCC unroll 8
          for (int i = 0; i < 8; ++i) steps[i] = load8(rows[8 * g + i] + p);
          transpose8(steps);
#pragma GCC unroll 8
          for (int q = 0; q < 8; ++q)
            acc[g] = _mm256_fmadd_ps(_mm256_broadcast_ss(a + (p + q) * a_step), steps[q], acc[g]);
        }
      }
      for (; p < block_end; ++p) {
        const __m256 a_value = _mm256_broadcast_ss(a + p * a_step);
        for (int g = 0; g < kGroups; ++g) {
          const W* const* r = rows + 8 * g;
          const __m256 step = _mm256_setr_ps(
              value_of(r[0][p]), value_of(r[1][p]), value_of(r[2][p]), value_of(r[3][p]),
              value_of(r[4][p]), value_of(r[5][p]), value_of(r[6][p]), value_of(r[7][p]));
          acc[g] = _mm256_fmadd_ps(a_value, step, acc[g]);
        }
      }
      for (int g = 0; g < kGroups; ++g) {
        const int64_t first = j + 8 * g;
        if (first < end)
          store_lanes(c + first, acc[g], static_cast<int>(std::min<int64_t>(8, end - first)),
                      accumulate || pc > 0);
      }
    }
  }
}

}  // namespace

ATENCION_AVX2_TARGET void avx2_row_product(const GemmShape& s, const float* a, const float* b,
                                           float* c, bool accumulate, int64_t kc,
                                           int64_t col_begin, int64_t col_end) {
  const int64_t a_step = s.trans_a ? s.lda : 1;
  if (s.trans_b)
    row_times_bt(s, a, a_step, b, c, accumulate, kc, col_begin, col_end);
  else
    row_times_b(s, a, a_step, b, c, accumulate, kc, col_begin, col_end);
}

ATENCION_AVX2_TARGET void avx2_row_product_bfloat16(const GemmShape& s, const float* a,
                                                    const uint16_t* bt, float* c, bool accumulate,
                                                    int64_t kc, int64_t col_begin,
                                                    int64_t col_end) {
  row_times_bt(s, a, s.trans_a ? s.lda : 1, bt, c, accumulate, kc, col_begin, col_end);
}

}  // namespace atencion::gemm_detail

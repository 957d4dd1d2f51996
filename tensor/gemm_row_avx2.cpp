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
// transposed in registers, so that each vector holds one step of 8 outputs.
//
// Bᵀ stored as bfloat16 (tensor/gemm_bfloat16.h) is read the same way, 16 outputs and 8 steps at
// a time, each output's sum the same fused multiply-adds in the same order: the bits of the
// float32 product of the widened matrix. A bfloat16 is the top half of a float32, so widening is
// placing its 16 bits above 16 zero bits; the transpose is done on the 16-bit values first (two
// groups of 8 outputs in one 256-bit register, half the instructions of transposing floats).
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
ATENCION_AVX2_TARGET void row_times_bt(const GemmShape& s, const float* a, int64_t a_step,
                                       const float* b, float* c, bool accumulate, int64_t kc,
                                       int64_t begin, int64_t end) {
  constexpr int kGroups = 2;
  for (int64_t j = begin; j < end; j += 8 * kGroups) {
    const float* rows[8 * kGroups];
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
          for (int i = 0; i < 8; ++i) steps[i] = _mm256_loadu_ps(rows[8 * g + i] + p);
          transpose8(steps);
#pragma GCC unroll 8
          for (int q = 0; q < 8; ++q)
            acc[g] = _mm256_fmadd_ps(_mm256_broadcast_ss(a + (p + q) * a_step), steps[q], acc[g]);
        }
      }
      for (; p < block_end; ++p) {
        const __m256 a_value = _mm256_broadcast_ss(a + p * a_step);
        for (int g = 0; g < kGroups; ++g) {
          const float* const* r = rows + 8 * g;
          const __m256 step = _mm256_setr_ps(r[0][p], r[1][p], r[2][p], r[3][p], r[4][p],
                                             r[5][p], r[6][p], r[7][p]);
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

// The 16-bit values 0-3 (widen_low) or 4-7 (widen_high) of each 128-bit half as floats: each
// above 16 zero bits, which is the float32 a bfloat16 stands for.
ATENCION_AVX2_TARGET inline __m256 widen_low(__m256i zero, __m256i bits) {
  return _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, bits));
}
ATENCION_AVX2_TARGET inline __m256 widen_high(__m256i zero, __m256i bits) {
  return _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, bits));
}

// Step p of outputs o0..o0+3 and o1..o1+3, widened one at a time (the steps past a multiple of 8).
ATENCION_AVX2_TARGET inline __m256 step_of(const uint16_t* const* rows, int64_t p, int o0, int o1) {
  float values[8];
  for (int i = 0; i < 4; ++i) {
    values[i] = bfloat16_to_float(rows[o0 + i][p]);
    values[4 + i] = bfloat16_to_float(rows[o1 + i][p]);
  }
  return _mm256_loadu_ps(values);
}

// Steps p..p+7 of the 16 outputs of `rows` added into `low` (outputs 0-3, 8-11) and `high` (4-7,
// 12-15), a_p = the first step's value of A. Register i holds the 8 steps of output i (low 128
// bits) and of output 8 + i (high); a transpose of the 16-bit values within each half gives, in
// register q, step q of outputs 0-7 and 8-15, and interleaving it with zeros widens it to floats.
ATENCION_AVX2_TARGET inline void sum_eight_steps(const uint16_t* const* rows, int64_t p,
                                                 const float* a_p, int64_t a_step, __m256& low,
                                                 __m256& high) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i v[8], t[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    const __m128i first = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[i] + p));
    const __m128i second = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[8 + i] + p));
    v[i] = _mm256_inserti128_si256(_mm256_castsi128_si256(first), second, 1);
  }
  for (int i = 0; i < 4; ++i) {  // pairs of outputs: steps 0-3, then 4-7
    t[2 * i] = _mm256_unpacklo_epi16(v[2 * i], v[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi16(v[2 * i], v[2 * i + 1]);
  }
  const __m256i u[8] = {  // fours of outputs: steps (0, 1), (2, 3), (4, 5), (6, 7)
      _mm256_unpacklo_epi32(t[0], t[2]), _mm256_unpackhi_epi32(t[0], t[2]),
      _mm256_unpacklo_epi32(t[1], t[3]), _mm256_unpackhi_epi32(t[1], t[3]),
      _mm256_unpacklo_epi32(t[4], t[6]), _mm256_unpackhi_epi32(t[4], t[6]),
      _mm256_unpacklo_epi32(t[5], t[7]), _mm256_unpackhi_epi32(t[5], t[7])};
#pragma GCC unroll 4
  for (int h = 0; h < 4; ++h) {  // steps 2h and 2h + 1 of all 16 outputs
    const __m256i even = _mm256_unpacklo_epi64(u[h], u[h + 4]);
    const __m256i odd = _mm256_unpackhi_epi64(u[h], u[h + 4]);
    const __m256 a_even = _mm256_broadcast_ss(a_p + 2 * h * a_step);
    const __m256 a_odd = _mm256_broadcast_ss(a_p + (2 * h + 1) * a_step);
    low = _mm256_fmadd_ps(a_even, widen_low(zero, even), low);
    high = _mm256_fmadd_ps(a_even, widen_high(zero, even), high);
    low = _mm256_fmadd_ps(a_odd, widen_low(zero, odd), low);
    high = _mm256_fmadd_ps(a_odd, widen_high(zero, odd), high);
  }
}

// Bᵀ as bfloat16 bits: outputs [begin, end), 16 at a time, 8 steps at a time (sum_eight_steps),
// in blocks of kc steps. Past the last output, the last row is read again and nothing stored.
ATENCION_AVX2_TARGET void row_times_bt_bfloat16(const GemmShape& s, const float* a,
                                                int64_t a_step, const uint16_t* b, float* c,
                                                bool accumulate, int64_t kc, int64_t begin,
                                                int64_t end) {
  for (int64_t j = begin; j < end; j += 16) {
    const uint16_t* rows[16];
    for (int i = 0; i < 16; ++i) rows[i] = b + std::min(j + i, end - 1) * s.ldb;
    // The next 16 rows, 16 · ldb values from these, asked for 4 cache lines per 8 steps (the
    // whole of them over the k steps when ldb = k), so that they stream in while these are
    // summed: a group's rows are short (1.5 KB each in GPT-2 small) for the CPU's own prefetch.
    const char* next = reinterpret_cast<const char*>(b + std::min(j + 16, end - 1) * s.ldb);
    for (int64_t pc = 0; pc < s.k; pc += kc) {
      const int64_t block_end = std::min(s.k, pc + kc);
      __m256 low = _mm256_setzero_ps(), high = _mm256_setzero_ps();
      int64_t p = pc;
      for (; p + 8 <= block_end; p += 8) {
        for (int line = 0; line < 4; ++line)
          _mm_prefetch(next + 32 * p + 64 * line, _MM_HINT_T0);
        sum_eight_steps(rows, p, a + p * a_step, a_step, low, high);
      }
      for (; p < block_end; ++p) {
        const __m256 a_value = _mm256_broadcast_ss(a + p * a_step);
        low = _mm256_fmadd_ps(a_value, step_of(rows, p, 0, 8), low);
        high = _mm256_fmadd_ps(a_value, step_of(rows, p, 4, 12), high);
      }
      // low = outputs 0-3, 8-11; high = 4-7, 12-15: back in order, 0-7 and 8-15.
      const __m256 first = _mm256_permute2f128_ps(low, high, 0x20);
      const __m256 second = _mm256_permute2f128_ps(low, high, 0x31);
      const bool add = accumulate || pc > 0;
      store_lanes(c + j, first, static_cast<int>(std::min<int64_t>(8, end - j)), add);
      if (j + 8 < end)
        store_lanes(c + j + 8, second, static_cast<int>(std::min<int64_t>(8, end - j - 8)), add);
    }
  }
}

// W in panels of 16 rows (tensor/packed_rows.h): panels [first, last) of n outputs, each read
// as one stream, a 16-float line a step; per block of kc steps, the line's two halves are added
// into two chains of fused multiply-adds (outputs 0-7 and 8-15), each output's sum in the order
// row_times_bt gives it. Rows past n are zeros in the panel: summed, never stored.
ATENCION_AVX2_TARGET void panels_times_row(int64_t k, const float* a, int64_t a_step,
                                           const float* panels, int64_t n, float* c,
                                           bool accumulate, int64_t kc, int64_t first,
                                           int64_t last) {
  for (int64_t r = first; r < last; ++r) {
    const float* panel = panels + r * 16 * k;
    const int64_t j = 16 * r;
    for (int64_t pc = 0; pc < k; pc += kc) {
      const int64_t block_end = std::min(k, pc + kc);
      __m256 low = _mm256_setzero_ps(), high = _mm256_setzero_ps();
#pragma GCC unroll 4
      for (int64_t p = pc; p < block_end; ++p) {
        const __m256 a_value = _mm256_broadcast_ss(a + p * a_step);
        low = _mm256_fmadd_ps(a_value, _mm256_load_ps(panel + 16 * p), low);
        high = _mm256_fmadd_ps(a_value, _mm256_load_ps(panel + 16 * p + 8), high);
      }
      const bool add = accumulate || pc > 0;
      store_lanes(c + j, low, static_cast<int>(std::min<int64_t>(8, n - j)), add);
      if (j + 8 < n)
        store_lanes(c + j + 8, high, static_cast<int>(std::min<int64_t>(8, n - j - 8)), add);
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
  row_times_bt_bfloat16(s, a, s.trans_a ? s.lda : 1, bt, c, accumulate, kc, col_begin, col_end);
}

ATENCION_AVX2_TARGET void avx2_packed_row_product(int64_t k, const float* a, int64_t a_step,
                                                  const float* panels, int64_t n, float* c,
                                                  bool accumulate, int64_t kc,
                                                  int64_t panel_begin, int64_t panel_end) {
  panels_times_row(k, a, a_step, panels, n, c, accumulate, kc, panel_begin, panel_end);
}

}  // namespace atencion::gemm_detail

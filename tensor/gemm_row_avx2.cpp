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
// W copied into panels (float32: 16 rows, tensor/packed_rows.h; bfloat16: 64 rows,
// tensor/bfloat16_matrix.h) is read panel by panel instead of 16 rows at once, a step of a
// panel's outputs at a time with no transpose (panels_times_row, bfloat16_panels_times_row),
// each output's sum the same fused multiply-adds in the same order: the bits of row_times_bt on
// W (or on the widened W). A bfloat16 is the top half of a float32, so widening is placing its
// 16 bits above 16 zero bits.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "tensor/gemm_kernel.h"

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

// A panel's step is 128 bytes (32 floats, or 64 bfloat16), two cache lines, read once a token.
// Both lines of the step 4 KB ahead are asked for with the non-temporal hint: they arrive before
// the loads need them, and they are kept out of the caches' long-lived ways, so that half a
// gigabyte of weights streaming through a decoded token does not push out what is read again
// (the key/value cache, the activations). Prefetches never fault, past the panels' end too, and
// change no value. Measured in docs/performance.md#weights-read-once.
constexpr int64_t kReadAheadBytes = 4096;

inline void read_ahead_once(const void* step) {
  const char* ahead = static_cast<const char*>(step) + kReadAheadBytes;
  _mm_prefetch(ahead, _MM_HINT_NTA);
  _mm_prefetch(ahead + 64, _MM_HINT_NTA);
}

// One float32 panel of 32 rows (tensor/packed_rows.h), `outputs` of them real (the rest zeros:
// summed, never stored): one stream, 128 bytes a step, its 32 weights the outputs 0-7, 8-15,
// 16-23 and 24-31 of the panel. Per block of kc steps, four chains of fused multiply-adds, one
// per group of 8 outputs, each output's sum in the order row_times_bt gives it. One stream
// rather than two panels of 16 read side by side: a core reads one stream faster than two
// (docs/performance.md#one-row-products), and four chains keep the multiply-adds' latency from
// holding back the reads.
ATENCION_AVX2_TARGET void sum_float_panel(int64_t k, const float* a, int64_t a_step,
                                          const float* panel, int64_t outputs, float* c,
                                          bool accumulate, int64_t kc) {
  constexpr int kGroups = 4;  // PackedRows::kPanelRows / 8
  for (int64_t pc = 0; pc < k; pc += kc) {
    const int64_t block_end = std::min(k, pc + kc);
    __m256 sums[kGroups];
    for (int g = 0; g < kGroups; ++g) sums[g] = _mm256_setzero_ps();
    const float* step = panel + 8 * kGroups * pc;
    for (int64_t p = pc; p < block_end; ++p, step += 8 * kGroups) {
      read_ahead_once(step);
      const __m256 a_value = _mm256_broadcast_ss(a + p * a_step);
#pragma GCC unroll 4
      for (int g = 0; g < kGroups; ++g)
        sums[g] = _mm256_fmadd_ps(a_value, _mm256_load_ps(step + 8 * g), sums[g]);
    }
    const bool add = accumulate || pc > 0;
#pragma GCC unroll 4
    for (int g = 0; g < kGroups; ++g) {
      const int64_t j = 8 * g;
      if (j < outputs)
        store_lanes(c + j, sums[g], static_cast<int>(std::min<int64_t>(8, outputs - j)), add);
    }
  }
}

// float32 panels [first, last) of n outputs, one at a time.
ATENCION_AVX2_TARGET void panels_times_row(int64_t k, const float* a, int64_t a_step,
                                           const float* panels, int64_t n, float* c,
                                           bool accumulate, int64_t kc, int64_t first,
                                           int64_t last) {
  constexpr int64_t rows = 32;  // PackedRows::kPanelRows
  for (int64_t r = first; r < last; ++r)
    sum_float_panel(k, a, a_step, panels + r * rows * k, std::min(rows, n - r * rows),
                    c + r * rows, accumulate, kc);
}

// One bfloat16 panel of 64 rows (tensor/bfloat16_matrix.h), `outputs` of them real (the rest
// zeros: summed, never stored): one stream, 128 bytes a step. Each group of 16 rows is widened as
// 32 bytes interleaved with zeros, values 0-3 of each 128-bit half (unpacklo_epi16) then 4-7
// (unpackhi), which puts each bfloat16 above 16 zero bits, the float32 it stands for: outputs
// 0-7 of the group, then 8-15, in order. Per block of kc steps, eight chains of fused
// multiply-adds (two a group), each output's sum in the order row_times_bt gives it.
ATENCION_AVX2_TARGET void sum_bfloat16_panel(int64_t k, const float* a, int64_t a_step,
                                             const uint16_t* panel, int64_t outputs, float* c,
                                             bool accumulate, int64_t kc) {
  constexpr int kGroups = 4;
  const __m256i zero = _mm256_setzero_si256();
  for (int64_t pc = 0; pc < k; pc += kc) {
    const int64_t block_end = std::min(k, pc + kc);
    __m256 low[kGroups], high[kGroups];
    for (int g = 0; g < kGroups; ++g) low[g] = high[g] = _mm256_setzero_ps();
    const uint16_t* step = panel + 16 * kGroups * pc;
    for (int64_t p = pc; p < block_end; ++p, step += 16 * kGroups) {
      read_ahead_once(step);
      const __m256 a_value = _mm256_broadcast_ss(a + p * a_step);
#pragma GCC unroll 4
      for (int g = 0; g < kGroups; ++g) {
        const __m256i bits = _mm256_load_si256(reinterpret_cast<const __m256i*>(step + 16 * g));
        const __m256 w_low = _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, bits));
        const __m256 w_high = _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, bits));
        low[g] = _mm256_fmadd_ps(a_value, w_low, low[g]);
        high[g] = _mm256_fmadd_ps(a_value, w_high, high[g]);
      }
    }
    const bool add = accumulate || pc > 0;
#pragma GCC unroll 4
    for (int g = 0; g < kGroups; ++g) {
      const int64_t j = 16 * g;
      if (j < outputs)
        store_lanes(c + j, low[g], static_cast<int>(std::min<int64_t>(8, outputs - j)), add);
      if (j + 8 < outputs)
        store_lanes(c + j + 8, high[g], static_cast<int>(std::min<int64_t>(8, outputs - j - 8)),
                    add);
    }
  }
}

// bfloat16 panels [first, last) of n outputs, one at a time (one stream; docs/performance.md
// #bfloat16-weights: a core read two streams of 16-row panels at 17-19 GB/s, one at 28-30).
ATENCION_AVX2_TARGET void bfloat16_panels_times_row(int64_t k, const float* a, int64_t a_step,
                                                    const uint16_t* panels, int64_t n, float* c,
                                                    bool accumulate, int64_t kc, int64_t first,
                                                    int64_t last) {
  constexpr int64_t rows = 64;  // BFloat16Matrix::kPanelRows
  for (int64_t r = first; r < last; ++r)
    sum_bfloat16_panel(k, a, a_step, panels + r * rows * k, std::min(rows, n - r * rows),
                       c + r * rows, accumulate, kc);
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

ATENCION_AVX2_TARGET void avx2_packed_row_product(int64_t k, const float* a, int64_t a_step,
                                                  const float* panels, int64_t n, float* c,
                                                  bool accumulate, int64_t kc,
                                                  int64_t panel_begin, int64_t panel_end) {
  panels_times_row(k, a, a_step, panels, n, c, accumulate, kc, panel_begin, panel_end);
}

ATENCION_AVX2_TARGET void avx2_packed_row_product_bfloat16(
    int64_t k, const float* a, int64_t a_step, const uint16_t* panels, int64_t n, float* c,
    bool accumulate, int64_t kc, int64_t panel_begin, int64_t panel_end) {
  bfloat16_panels_times_row(k, a, a_step, panels, n, c, accumulate, kc, panel_begin, panel_end);
}

}  // namespace atencion::gemm_detail

// tensor/detail/fast_exp.h — e^x in float32 without a library call, so loops over it vectorise.
// Lesson: docs/11-training.md#the-gradient-written-out
//
// std::exp is a call the compiler cannot turn into SIMD code (it may set errno), and the
// cross-entropy over a [tokens, vocabulary] matrix (nn/detail/cross_entropy_rows.cpp) and the
// softmax rows (tensor/softmax.cpp) spend most of their time in it. This is the
// classic range reduction (as in Cephes' expf):
//   x = n·ln 2 + r,  n = round(x / ln 2),  |r| ≤ ln 2 / 2
//   e^x = 2^n · e^r,  e^r ≈ 1 + r + r²·P(r)  with P of degree 5 (relative error ~1e-7)
// and 2^n written straight into the float's exponent bits. tests/tensor/detail/test_fast_exp.cpp
// pins it to std::exp within 2 float32 ulps on [-87, 88] and checks the ends.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace atencion::detail {

inline float fast_exp(float x) {
  // Into [−87, 88], where 2^n below is a normal float; NaN goes to −87 too, so the conversion
  // to int stays defined (the NaN is given back at the end).
  const float clamped = x > -87.0f ? (x < 88.0f ? x : 88.0f) : -87.0f;
  // n = round(x · log2 e), by the float "magic number" trick (1.5 · 2^23) so the rounding needs
  // no library call either.
  const float magic = 12582912.0f;
  const float n = (clamped * 1.44269504088896341f + magic) - magic;
  // r = x − n·ln 2, with ln 2 split in two (Cody–Waite) so that r keeps its low bits.
  float r = clamped - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e_r = p * r * r + r + 1.0f;
  const float two_to_n = std::bit_cast<float>(static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23);
  const float inside = e_r * two_to_n;
  // Below −87 the answer is near float's smallest normal number (1.2e-38): 0, so e^(−∞) = 0.
  // Above 88 it is +∞ (float overflows at 88.72; the exponents of a softmax are ≤ 0 anyway).
  const float outside = x < -87.0f ? 0.0f : std::numeric_limits<float>::infinity();
  const float result = x < -87.0f || x > 88.0f ? outside : inside;
  return x != x ? x : result;  // NaN in, NaN out
}

}  // namespace atencion::detail

// tensor/half.h — the two 16-bit float formats of published checkpoints, to and from float32.
// Lesson: docs/01-tensor.md#files
//
// Both keep float32's layout (sign, exponent, mantissa), with fewer bits:
//
//   format     sign  exponent  mantissa  largest finite   smallest subnormal
//   float16      1      5         10         65504           2^-24
//   bfloat16     1      8          7         ≈ 3.39e38       2^-133
//   float32      1      8         23         ≈ 3.40e38       2^-149
//
// Widening to float32 is exact for every value, subnormals, ±0, ±inf and NaN included (a NaN
// keeps its sign and its payload, shifted into float32's wider mantissa). Narrowing rounds to
// nearest, ties to even, as torch's `tensor.half()` and `tensor.bfloat16()` do, bit for bit:
// a float16 overflows to ±inf from 65520 up, tiny values become float16 subnormals or ±0, and
// NaN becomes the quiet NaN 0x7E00 (float16, sign kept) or 0x7FC0 (bfloat16, as torch does
// element by element; its vectorised loop writes 0xFFFF, another NaN).
//
// Besides loading checkpoints, bfloat16 keeps weights for inference at half the bytes
// (tensor/bfloat16_matrix.h; docs/performance.md#bfloat16-weights).
#pragma once

#include <cstdint>

namespace atencion {

float half_to_float(uint16_t bits);
float bfloat16_to_float(uint16_t bits);
uint16_t float_to_half(float value);
uint16_t float_to_bfloat16(float value);

}  // namespace atencion

// tensor/half.cpp — float16 / bfloat16 <-> float32; see tensor/half.h for the formats.
// Lesson: docs/01-tensor.md#files
#include "tensor/half.h"

#include <bit>
#include <cmath>

namespace atencion {

float half_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1f;
  const uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) {
    // ±0 and subnormals: mantissa · 2^-24, exact in float32 (which reaches down to 2^-149).
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f)  // ±inf (mantissa 0) or NaN (its payload moved to the top bits)
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  // Normal: value = 1.mantissa · 2^(exponent − 15); float32's exponent bias is 127, so the
  // stored exponent moves up by 127 − 15 = 112 and the mantissa gains 13 zero bits.
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// bfloat16 is the top half of a float32: widening appends 16 zero bits.
float bfloat16_to_float(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t float_to_half(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00;  // NaN -> the quiet NaN
  // From 65520 (halfway between 65504, the largest float16, and 2^16) up: ±inf. The tie goes
  // to 2^16 because 65504's mantissa 0x3ff is odd.
  if (magnitude >= 0x477ff000u) return sign | 0x7c00;
  if (magnitude < 0x38800000u) {
    // Below 2^-14, float16's smallest normal: a subnormal count of 2^-24 units. Scaling by
    // 2^24 is exact and nearbyint rounds half to even (the default rounding mode); a count
    // of 1024 is the bit pattern of 2^-14 itself.
    const float units = std::ldexp(std::bit_cast<float>(magnitude), 24);
    return sign | static_cast<uint16_t>(std::nearbyint(units));
  }
  // Normal: drop 13 mantissa bits, rounding to nearest even (add 0x0fff, plus 1 when the lowest
  // kept bit is odd), and rebias the exponent from 127 to 15; a carry out of the mantissa
  // correctly bumps the exponent.
  const uint32_t rounded = magnitude + 0x0fffu + ((magnitude >> 13) & 1u);
  return sign | static_cast<uint16_t>((rounded - (112u << 23)) >> 13);
}

uint16_t float_to_bfloat16(float value) {
  if (std::isnan(value)) return 0x7fc0;  // torch's choice: the positive quiet NaN
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  // Keep the top 16 bits, rounding to nearest even; values past the largest bfloat16 carry
  // into the exponent and become ±inf.
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

}  // namespace atencion

// Tests for tensor/half.cpp: float16 / bfloat16 to float32 and back. torch's own roundings are
// checked on its files in tests/tensor/test_safetensors_dtypes.cpp.
#include <catch2/catch.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "tensor/half.h"

using namespace atencion;

TEST_CASE("half: known float16 bit patterns widen to their values", "[half]") {
  CHECK(half_to_float(0x3c00) == 1.0f);
  CHECK(half_to_float(0xc100) == -2.5f);
  CHECK(half_to_float(0x7bff) == 65504.0f);              // the largest finite
  CHECK(half_to_float(0x0400) == std::ldexp(1.0f, -14));  // the smallest normal
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));  // the smallest subnormal
  CHECK(half_to_float(0x03ff) == std::ldexp(1023.0f, -24));
  CHECK(std::signbit(half_to_float(0x8000)));
  CHECK(half_to_float(0x8000) == 0.0f);
  CHECK(half_to_float(0x7c00) == std::numeric_limits<float>::infinity());
  CHECK(half_to_float(0xfc00) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(half_to_float(0x7e00)));
}

TEST_CASE("half: every float16 and bfloat16 survives widening and narrowing", "[half]") {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t h = static_cast<uint16_t>(bits);
    const float widened = half_to_float(h);
    const float widened_bf16 = bfloat16_to_float(h);
    if (std::isnan(widened)) {
      CHECK(float_to_half(widened) == ((h & 0x8000) | 0x7e00));  // the quiet NaN, sign kept
    } else {
      REQUIRE(float_to_half(widened) == h);
    }
    if (std::isnan(widened_bf16)) {
      CHECK(float_to_bfloat16(widened_bf16) == 0x7fc0);
    } else {
      REQUIRE(float_to_bfloat16(widened_bf16) == h);
    }
  }
}

TEST_CASE("half: narrowing rounds to nearest, ties to even", "[half]") {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10 (mantissa 0, even): down; 1 + 3·2^-11 is
  // halfway between mantissas 1 and 2: up to the even one.
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);
  CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);
  CHECK(float_to_half(65519.0f) == 0x7bff);
  CHECK(float_to_half(65520.0f) == 0x7c00);  // the tie above 65504 goes to infinity
  CHECK(float_to_half(-1e6f) == 0xfc00);
  // Subnormals: counts of 2^-24, ties to even.
  CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);
  CHECK(float_to_half(std::ldexp(3.0f, -26)) == 0x0001);
  CHECK(float_to_half(std::ldexp(3.0f, -25)) == 0x0002);  // 1.5 units -> 2
  CHECK(float_to_half(std::ldexp(5.0f, -25)) == 0x0002);  // 2.5 units -> 2
  CHECK(float_to_half(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)) == 0x0400);
  CHECK(float_to_half(-1e-10f) == 0x8000);
  CHECK(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);
  CHECK(float_to_bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);
  CHECK(float_to_bfloat16(std::numeric_limits<float>::max()) == 0x7f80);
}

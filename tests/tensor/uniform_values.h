// tests/tensor/uniform_values.h — `count` floats drawn uniformly from [-1, 1) by a seeded
// std::mt19937: the operands of the product tests (test_gemm_bfloat16.cpp, test_packed_rows.cpp).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

inline std::vector<float> uniform_values(int64_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = uniform(generator);
  return values;
}

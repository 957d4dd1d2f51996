// tensor/random.cpp — a seeded generator that draws the same numbers on every machine.
// Lesson: docs/01-tensor.md#random
//
// The exact recipe is in tensor/random.h; tests/tensor/test_random.cpp checks the first draws
// against values computed independently in Python.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "tensor/detail/strided.h"
#include "tensor/random.h"

namespace atencion {

Generator::Generator(uint64_t seed) : seed_(seed), state_(seed) {}

Generator Generator::skipping_tensor_draws(uint64_t seed) {
  Generator generator(seed);
  generator.skips_tensor_draws_ = true;
  return generator;
}

namespace {
// The top 53 bits fill a double's mantissa exactly: k / 2^53 for k in [0, 2^53).
double to_unit_interval(uint64_t word) { return static_cast<double>(word >> 11) * 0x1.0p-53; }
}  // namespace

// SplitMix64: a Weyl sequence (add an odd constant) scrambled by two xor-shift-multiply rounds.
uint64_t Generator::next_u64() {
  state_ += kGamma;
  return mix(state_);
}

double Generator::uniform() { return to_unit_interval(next_u64()); }

// Box–Muller: two uniforms give two independent standard normals; the second is kept.
double Generator::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double u1 = uniform();
  const double u2 = uniform();
  const double radius = std::sqrt(-2.0 * std::log(1.0 - u1));  // 1 - u1 is in (0, 1]
  const double angle = 2.0 * std::numbers::pi * u2;
  spare_ = radius * std::sin(angle);
  has_spare_ = true;
  return radius * std::cos(angle);
}

// The modulo bias is at most (high - low) / 2^64: invisible at the sizes we draw.
int64_t Generator::randint(int64_t low, int64_t high) {
  if (high <= low) {
    throw std::invalid_argument("randint: empty range [" + std::to_string(low) + ", " +
                                std::to_string(high) + ")");
  }
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  return static_cast<int64_t>(static_cast<uint64_t>(low) + next_u64() % range);
}

namespace {
// One draw per element, in row-major order (sequential: the sequence defines the result).
template <typename Draw>
Tensor fill_with(const char* op, const Shape& shape, DType dtype, Draw draw) {
  Tensor out = Tensor::uninitialized(shape, dtype);
  detail::dispatch_floating(op, dtype, [&](auto tag) {
    using T = decltype(tag);
    T* values = out.data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) values[i] = static_cast<T>(draw());
  });
  return out;
}
}  // namespace

Tensor randn(const Shape& shape, Generator& generator, DType dtype) {
  if (generator.skips_tensor_draws()) return fill_with("randn", shape, dtype, [] { return 0.0; });
  return fill_with("randn", shape, dtype, [&] { return generator.normal(); });
}

// Uniform draws, i.e. draw i = peek_u64(i), so the tensor is filled in parallel with
// exactly the sequence a one-by-one loop would draw, then the generator skips past them.
template <typename Value>
Tensor fill_with_uniforms(const char* op, const Shape& shape, DType dtype, Generator& generator,
                          Value value_of_uniform) {
  if (generator.skips_tensor_draws()) return fill_with(op, shape, dtype, [] { return 0.0; });
  Tensor out = Tensor::uninitialized(shape, dtype);
  const int64_t count = out.numel();
  detail::dispatch_floating(op, dtype, [&](auto tag) {
    using T = decltype(tag);
    T* values = out.data<T>();
    constexpr int64_t kChunk = 4096;
    detail::parallel_for((count + kChunk - 1) / kChunk, kChunk, [&](int64_t chunk) {
      const int64_t end = std::min(count, (chunk + 1) * kChunk);
      for (int64_t i = chunk * kChunk; i < end; ++i) {
        const double u = to_unit_interval(generator.peek_u64(static_cast<uint64_t>(i)));
        values[i] = value_of_uniform(u, T{});
      }
    });
  });
  generator.skip(static_cast<uint64_t>(count));
  return out;
}

Tensor rand(const Shape& shape, Generator& generator, DType dtype) {
  return fill_with_uniforms("rand", shape, dtype, generator,
                            [](double u, auto tag) { return static_cast<decltype(tag)>(u); });
}

Tensor uniform(const Shape& shape, double low, double high, Generator& generator, DType dtype) {
  if (!(low <= high)) {
    throw std::invalid_argument("uniform: low " + std::to_string(low) + " is above high " +
                                std::to_string(high));
  }
  return fill_with_uniforms("uniform", shape, dtype, generator, [&](double u, auto tag) {
    return static_cast<decltype(tag)>(low + (high - low) * u);
  });
}

}  // namespace atencion

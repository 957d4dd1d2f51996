// tests/autograd/gradcheck_helpers.h — makes REQUIRE(gradcheck(...)) print why it failed, and
// draws float64 test inputs. For any layer's tests: #include "autograd/gradcheck_helpers.h".
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "autograd/gradcheck.h"
#include "tensor/random.h"

namespace Catch {
// REQUIRE(gradcheck(f, inputs)) shows the result's message (input, element, analytic, numeric)
// in the failure report instead of "{?}".
template <>
struct StringMaker<atencion::GradcheckResult> {
  static std::string convert(const atencion::GradcheckResult& result) { return result.message; }
};
}  // namespace Catch

namespace atencion::testing {

// Float64 values drawn uniformly from [low, high), the same for the same seed.
inline Tensor random_f64(const Shape& shape, uint64_t seed, double low = -1.0, double high = 1.0) {
  Generator generator(seed);
  return uniform(shape, low, high, generator, DType::Float64);
}

// Like random_f64, but every value's magnitude is in [0.5, 1.5) with a random sign: for ops with
// a kink or a pole at 0 (relu, abs, division), which finite differences must not straddle.
inline Tensor away_from_zero_f64(const Shape& shape, uint64_t seed) {
  Generator generator(seed);
  Tensor t = uniform(shape, 0.5, 1.5, generator, DType::Float64);
  std::vector<double> values = t.to_vector();
  for (double& v : values) {
    if (generator.uniform() < 0.5) v = -v;
  }
  return Tensor::from_vector(values, shape, DType::Float64);
}

}  // namespace atencion::testing

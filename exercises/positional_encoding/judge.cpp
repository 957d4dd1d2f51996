// exercises/positional_encoding/judge.cpp — judges exercise::positional_encoding.
// Lesson: docs/10-transformer.md#positional-encoding
#include <catch2/catch.hpp>

#include <cmath>

#include "exercises/positional_encoding/positional_encoding.h"
#include "exercises/judge_report.h"
#include "nn/positional_encoding.h"

using namespace atencion;

TEST_CASE("positional_encoding: position 0 is sin 0 and cos 0 in turn", "[exercise]") {
  Tensor table = exercise::positional_encoding(3, 6);
  REQUIRE(table.shape() == Shape{3, 6});
  REQUIRE(table.dtype() == DType::Float64);
  CHECK(judge::close_to(table.narrow(0, 0, 1), Tensor::from({{0, 1, 0, 1, 0, 1}}, DType::Float64),
                       0, 0));
}

TEST_CASE("positional_encoding: position 1 by hand with d_model 4", "[exercise]") {
  // Pair 0: wavelength 10000^0 = 1, angle 1. Pair 1: 10000^(2/4) = 100, angle 1/100.
  Tensor table = exercise::positional_encoding(2, 4);
  CHECK(table.at({1, 0}) == Approx(std::sin(1.0)).epsilon(1e-12));
  CHECK(table.at({1, 1}) == Approx(std::cos(1.0)).epsilon(1e-12));
  CHECK(table.at({1, 2}) == Approx(std::sin(0.01)).epsilon(1e-12));
  CHECK(table.at({1, 3}) == Approx(std::cos(0.01)).epsilon(1e-12));
}

TEST_CASE("positional_encoding: equals the library's table for 50 positions of 16 dims",
          "[exercise]") {
  Generator unused(0);
  nn::PositionalEncoding ours(16, 50, 0.0, unused);
  CHECK(judge::close_to(exercise::positional_encoding(50, 16), ours.table(), 1e-12, 1e-12));
}

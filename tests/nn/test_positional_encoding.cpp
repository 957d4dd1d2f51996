// tests/nn/test_positional_encoding.cpp — nn/positional_encoding.cpp: the paper's table.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/positional_encoding.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("PositionalEncoding: sin on even dims, cos on odd dims, wavelengths 10000^(2i/d)",
          "[positional_encoding]") {
  Generator generator(1);
  PositionalEncoding encoding(6, 10, 0.0, generator);
  const Tensor& table = encoding.table();
  REQUIRE(table.shape() == Shape{10, 6});
  // Position 0: sin 0 = 0, cos 0 = 1.
  REQUIRE(table.at({0, 0}) == 0.0);
  REQUIRE(table.at({0, 1}) == 1.0);
  // Position 3, pair i = 1 (dims 2, 3): angle 3 / 10000^(2/6).
  const double angle = 3.0 / std::pow(10000.0, 2.0 / 6.0);
  REQUIRE(table.at({3, 2}) == Approx(std::sin(angle)).epsilon(1e-15));
  REQUIRE(table.at({3, 3}) == Approx(std::cos(angle)).epsilon(1e-15));
  // Pair i = 0 has wavelength 2π: position 7 is sin 7.
  REQUIRE(table.at({7, 0}) == Approx(std::sin(7.0)).epsilon(1e-15));
  // An odd d_model keeps the last sine without its cosine.
  PositionalEncoding odd(5, 4, 0.0, generator);
  REQUIRE(odd.table().at({2, 4}) == Approx(std::sin(2.0 / std::pow(10000.0, 4.0 / 5.0))));
}

TEST_CASE("PositionalEncoding: adds PE[0:T] to every sequence, gradient passes unchanged",
          "[positional_encoding]") {
  Generator generator(2);
  PositionalEncoding encoding(4, 8, 0.0, generator);
  Variable x(Tensor::zeros({2, 3, 4}), true);
  Variable y = encoding(x);
  REQUIRE(y.shape() == Shape{2, 3, 4});
  REQUIRE(y.value().at({1, 2, 1}) == Approx(std::cos(2.0)));
  REQUIRE(y.value().at({0, 2, 1}) == y.value().at({1, 2, 1}));

  encoding.to(DType::Float64);
  const auto result = gradcheck(
      [&](const std::vector<Variable>& inputs) { return encoding(inputs[0]); },
      {randn({2, 3, 4}, generator, DType::Float64)});
  INFO(result.message);
  REQUIRE(result.ok);
  REQUIRE_THROWS_WITH(encoding(Variable(Tensor::zeros({1, 9, 4}))), Contains("T <= max_len"));
}

TEST_CASE("PositionalEncoding: each row from its own position gives what that row gets alone",
          "[positional_encoding]") {
  Generator generator(3);
  PositionalEncoding encoding(4, 8, 0.0, generator);
  const Tensor x = randn({3, 2, 4}, generator);
  const std::vector<int64_t> first = {5, 0, 2};
  const Tensor y = encoding.forward(Variable(x), first).value();
  for (int64_t b = 0; b < 3; ++b)
    CHECK(y.narrow(0, b, 1).to_vector() ==
          encoding(Variable(x.narrow(0, b, 1).contiguous()), first[b]).value().to_vector());
  encoding.to(DType::Float64);
  const auto result = gradcheck(
      [&](const std::vector<Variable>& inputs) { return encoding.forward(inputs[0], first); },
      {randn({3, 2, 4}, generator, DType::Float64)});
  INFO(result.message);
  REQUIRE(result.ok);
  CHECK_THROWS_WITH(encoding.forward(Variable(x), std::vector<int64_t>{5, 0, 7}),
                    Contains("PositionalEncoding(d_model=4, max_len=8): input [3, 2, 4] with 3 "
                             "first positions: expected [batch, T, d_model], one each, with "
                             "first + T <= max_len"));
}

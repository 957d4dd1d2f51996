// tests/nn/test_layer_norm.cpp — nn/layer_norm.cpp: values, the written-out backward, torch's eps.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "tensor/random.h"
#include "tensor/threads.h"
#include "nn/layer_norm.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("LayerNorm: each row to mean 0, variance 1 (population), then γ·x̂ + β", "[layer_norm]") {
  LayerNorm norm(4);
  REQUIRE(norm.weight.value().to_vector() == std::vector<double>{1, 1, 1, 1});
  REQUIRE(norm.bias.value().to_vector() == std::vector<double>{0, 0, 0, 0});
  // Row [1, 2, 3, 4]: μ = 2.5, σ² = 1.25.
  Variable x(Tensor::from({{1.0, 2.0, 3.0, 4.0}, {-2.0, -2.0, -2.0, -2.0}}, DType::Float64));
  norm.to(DType::Float64);
  const Tensor y = norm(x).value();
  const double rstd = 1.0 / std::sqrt(1.25 + 1e-5);
  REQUIRE(y.at({0, 0}) == Approx(-1.5 * rstd).epsilon(1e-14));
  REQUIRE(y.at({0, 3}) == Approx(1.5 * rstd).epsilon(1e-14));
  REQUIRE(y.at({1, 2}) == 0.0);  // a constant row: x − μ = 0 (eps keeps 1/σ finite)

  norm.weight.mutable_value().copy_(Tensor::from({2.0, 2.0, 2.0, 2.0}, DType::Float64));
  norm.bias.mutable_value().copy_(Tensor::from({0.0, 1.0, 0.0, 0.0}, DType::Float64));
  const Tensor scaled = norm(x).value();
  REQUIRE(scaled.at({0, 1}) == Approx(2 * -0.5 * rstd + 1).epsilon(1e-14));
}

TEST_CASE("LayerNorm: gradcheck w.r.t. input, weight and bias in float64", "[layer_norm][gradcheck]") {
  Generator generator(5);
  LayerNorm norm(5);
  norm.to(DType::Float64);
  norm.weight.mutable_value() = add(randn({5}, generator, DType::Float64), 1.0);
  norm.bias.mutable_value() = randn({5}, generator, DType::Float64);
  const auto result = gradcheck(
      [&](const std::vector<Variable>& inputs) { return norm(inputs[0]); },
      {randn({2, 3, 5}, generator, DType::Float64)}, norm.parameters());
  INFO(result.message);
  REQUIRE(result.ok);
}

TEST_CASE("LayerNorm: the fused op equals the composed formula", "[layer_norm]") {
  Generator generator(6);
  const Tensor x = randn({3, 7}, generator, DType::Float64);
  LayerNorm norm(7);
  norm.to(DType::Float64);
  Variable input(x);
  const Variable centred = input - mean(input, {-1}, true);
  const Variable composed = centred / sqrt(var(input, {-1}, /*correction=*/0, true) + 1e-5);
  REQUIRE(allclose(norm(input).value(), composed.value(), 1e-12, 1e-12));
}

TEST_CASE("LayerNorm: bad shapes are refused", "[layer_norm]") {
  LayerNorm norm(4);
  REQUIRE_THROWS_WITH(norm(Variable(Tensor::zeros({2, 3}))), Contains("layer_norm: x [2, 3]"));
  REQUIRE_THROWS_WITH(norm(Variable(Tensor::zeros({2, 4}, DType::Float64))), Contains("float64"));
}

TEST_CASE("LayerNorm: the same bits with one thread or two", "[layer_norm][threads]") {
  Generator generator(7);
  const Tensor x = randn({300, 256}, generator);  // large enough to run in parallel
  const Tensor g = randn({300, 256}, generator);
  std::vector<std::vector<double>> results;
  const int previous = num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    LayerNorm norm(256);
    Variable input(x, true);
    norm(input).backward(g);
    results.push_back(input.grad().to_vector());
    results.push_back(norm.weight.grad().to_vector());
    results.push_back(norm.bias.grad().to_vector());
  }
  set_num_threads(previous);
  for (std::size_t k = 0; k < 3; ++k) REQUIRE(results[k] == results[k + 3]);
}

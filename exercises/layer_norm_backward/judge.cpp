// exercises/layer_norm_backward/judge.cpp — judges exercise::layer_norm_backward.
// Lesson: docs/10-transformer.md#layer-normalisation
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "exercises/layer_norm_backward/layer_norm_backward.h"
#include "exercises/judge_report.h"
#include "nn/layer_norm.h"
#include "tensor/random.h"

using namespace atencion;

namespace {
constexpr double kEps = 1e-5;

// LayerNorm's forward as one autograd op whose backward is yours.
Variable layer_norm_with_your_backward(const Variable& x, const Variable& weight,
                                       const Variable& bias) {
  const Tensor input = x.value(), gamma = weight.value();
  const Tensor x_hat = div(sub(input, mean(input, {-1}, true)),
                           sqrt(add(var(input, {-1}, 0, true), kEps)));
  return record("layer_norm (yours)", add(mul(x_hat, gamma), bias.value()), {x, weight, bias},
                [=](const Tensor& g) -> Grads {
                  exercise::LayerNormGrads grads =
                      exercise::layer_norm_backward(input, gamma, g, kEps);
                  return {grads.input, grads.weight, grads.bias};
                });
}
}  // namespace

TEST_CASE("layer_norm_backward: shapes and the gradients of the library's LayerNorm",
          "[exercise]") {
  Generator generator(80);
  Variable x(randn({2, 3, 5}, generator, DType::Float64), true);
  Variable weight(add(randn({5}, generator, DType::Float64), 1.0), true);
  Variable bias(randn({5}, generator, DType::Float64), true);
  const Tensor g = randn({2, 3, 5}, generator, DType::Float64);
  nn::layer_norm(x, weight, bias, kEps).backward(g);
  exercise::LayerNormGrads yours =
      exercise::layer_norm_backward(x.value(), weight.value(), g, kEps);
  REQUIRE(yours.input.shape() == Shape{2, 3, 5});
  REQUIRE(yours.weight.shape() == Shape{5});
  REQUIRE(yours.bias.shape() == Shape{5});
  CHECK(judge::close_to(yours.bias, bias.grad(), 1e-10, 1e-12));
  CHECK(judge::close_to(yours.weight, weight.grad(), 1e-10, 1e-12));
  CHECK(judge::close_to(yours.input, x.grad(), 1e-10, 1e-12));
}

TEST_CASE("layer_norm_backward: gradcheck against finite differences", "[exercise]") {
  Generator generator(81);
  auto f = [](const std::vector<Variable>& in) {
    return layer_norm_with_your_backward(in[0], in[1], in[2]);
  };
  auto result = gradcheck(f, {randn({3, 4}, generator, DType::Float64),
                              add(randn({4}, generator, DType::Float64), 1.0),
                              randn({4}, generator, DType::Float64)});
  INFO(judge::short_lines(result.message));
  CHECK(result.ok);
}

// exercises/lora_forward/judge.cpp — judges exercise::lora_forward.
// Lesson: docs/18-finetuning.md#lora-as-a-graph
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "exercises/judge_report.h"
#include "exercises/lora_forward/lora_forward.h"
#include "nn/linear.h"
#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;

namespace {
Variable f64(const NestedValues& values, bool requires_grad = false) {
  return Variable(Tensor::from(values, DType::Float64), requires_grad);
}
}  // namespace

TEST_CASE("lora_forward: by hand with the update scaled by alpha over r", "[exercise]") {
  // W = I (2×2), b = 0, A = [1 1] (r = 1), B = [[1], [2]], scaling 3:
  // y = x + 3 · (x₀ + x₁) · [1, 2].
  const Variable y = exercise::lora_forward(f64({{1, 2}}), f64({{1, 0}, {0, 1}}), f64({0, 0}),
                                            f64({{1, 1}}), f64({{1}, {2}}), 3.0);
  REQUIRE(y.shape() == Shape{1, 2});
  CHECK(y.value().contiguous().to_vector() == std::vector<double>{10, 20});
}

TEST_CASE("lora_forward: B = 0 is the plain layer, with or without a bias", "[exercise]") {
  const Variable x = f64({{1, 10}, {2, 3}});
  const Variable weight = f64({{1, 2}, {3, 4}, {5, 6}});
  const Variable zero_B(Tensor::zeros({3, 2}, DType::Float64));
  const Variable A = f64({{0.5, -1}, {2, 1}});
  const Variable y = exercise::lora_forward(x, weight, f64({100, 200, 300}), A, zero_B, 8.0);
  CHECK(y.value().contiguous().to_vector() ==
        std::vector<double>{121, 243, 365, 108, 218, 328});
  const Variable no_bias = exercise::lora_forward(x, weight, Variable(), A, zero_B, 8.0);
  CHECK(no_bias.value().contiguous().to_vector() == std::vector<double>{21, 43, 65, 8, 18, 28});
}

TEST_CASE("lora_forward: equals nn::Linear with add_lora, values and gradients", "[exercise]") {
  Generator generator(1);
  nn::Linear layer(4, 3, generator);
  layer.add_lora(2, 6.0, generator);  // scaling 3
  layer.to(DType::Float64);
  layer.lora_B.mutable_value().copy_(randn({3, 2}, generator, DType::Float64));
  const Tensor input = randn({2, 5, 4}, generator, DType::Float64);
  const Variable theirs_x(input, true), mine_x(input.clone(), true);
  const Variable ours = layer(theirs_x);
  ours.backward(Tensor::ones(ours.shape(), DType::Float64));
  const Variable A(layer.lora_A.value().clone(), true), B(layer.lora_B.value().clone(), true);
  const Variable yours = exercise::lora_forward(mine_x, Variable(layer.weight.value()),
                                                Variable(layer.bias.value()), A, B, 3.0);
  REQUIRE(yours.shape() == Shape{2, 5, 3});
  REQUIRE(judge::close_to(yours.value(), ours.value()));
  yours.backward(Tensor::ones(yours.shape(), DType::Float64));
  CHECK(judge::close_to(mine_x.grad(), theirs_x.grad()));
  CHECK(judge::close_to(A.grad(), layer.lora_A.grad()));
  CHECK(judge::close_to(B.grad(), layer.lora_B.grad()));
}

// exercises/linear/judge.cpp — judges exercise::linear.
// Lesson: docs/03-linear.md
#include <catch2/catch.hpp>

#include "exercises/linear/linear.h"
#include "exercises/judge_report.h"
#include "nn/fixture.h"

using namespace atencion;

namespace {
Variable f64(const NestedValues& values, bool requires_grad = false) {
  return Variable(Tensor::from(values, DType::Float64), requires_grad);
}
}  // namespace

TEST_CASE("linear: y = x Wᵀ + b by hand", "[exercise]") {
  // W has 3 rows (out) of 2 (in): y_j = x · W_j + b_j.
  Variable weight = f64({{1, 2}, {3, 4}, {5, 6}});
  Variable y = exercise::linear(f64({{1, 10}}), weight, f64({100, 200, 300}));
  REQUIRE(y.shape() == Shape{1, 3});
  CHECK(y.value().contiguous().to_vector() == std::vector<double>{121, 243, 365});
  CHECK(exercise::linear(f64({{1, 10}}), weight, Variable()).value().contiguous().to_vector() ==
        std::vector<double>{21, 43, 65});
}

TEST_CASE("linear: any leading dims", "[exercise]") {
  Variable y = exercise::linear(Variable(Tensor::ones({2, 3, 4}, DType::Float64)),
                                Variable(Tensor::ones({5, 4}, DType::Float64)), Variable());
  REQUIRE(y.shape() == Shape{2, 3, 5});
  CHECK(judge::close_to(y.value(), Tensor::full({2, 3, 5}, 4.0, DType::Float64), 0, 0));
}

TEST_CASE("linear: equals torch.nn.Linear with its gradients", "[exercise][fixture]") {
  using namespace atencion::testing;
  for (const char* name : {"linear_f64", "linear_no_bias_f64"}) {
    INFO("fixture " << name << " (PyTorch's output for the same weights and inputs)");
    Fixture fixture(name);
    const bool has_bias = fixture.meta_flag("bias");
    Variable x = fixture.input_variable("x");
    Variable weight(fixture.tensor("param.weight"), true);
    Variable bias = has_bias ? Variable(fixture.tensor("param.bias"), true) : Variable();
    Variable y = exercise::linear(x, weight, bias);
    REQUIRE(judge::close_to(y.value(), fixture.output()));
    y.backward(fixture.grad_output());
    CHECK(judge::close_to(x.grad(), fixture.grad_input("x")));
    CHECK(judge::close_to(weight.grad(), fixture.grad_param("weight")));
    if (has_bias) CHECK(judge::close_to(bias.grad(), fixture.grad_param("bias")));
  }
}

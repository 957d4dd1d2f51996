// tests/autograd/test_gradcheck.cpp — the checker passes right gradients and catches wrong ones.
#include <catch2/catch.hpp>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"

using namespace atencion;
using namespace atencion::testing;
using Catch::Matchers::Contains;

namespace {
// y = x³, recorded with a deliberately wrong derivative: 2x² instead of 3x².
Variable cube_with_wrong_backward(const Variable& x) {
  const Tensor x_value = x.value();
  return record("wrong_cube", pow(x_value, 3.0), {x}, [=](const Tensor& g) -> Grads {
    return {mul(g, mul(pow(x_value, 2.0), 2.0))};
  });
}
}  // namespace

TEST_CASE("gradcheck: passes a right backward", "[gradcheck_tool]") {
  auto f = [](const std::vector<Variable>& v) { return mul(v[0], v[1]); };
  const GradcheckResult result =
      gradcheck(f, {random_f64({2, 3}, 1), random_f64({2, 3}, 2)});
  REQUIRE(result);
  CHECK_THAT(result.message, Contains("passed") && Contains("72 Jacobian entries"));
}

TEST_CASE("gradcheck: fails a wrong backward and says where", "[gradcheck_tool]") {
  const Tensor x = Tensor::from({{1.0, 2.0}, {3.0, 4.0}}, DType::Float64);
  const Tensor other = Tensor::from({0.5, 0.5}, DType::Float64);
  auto f = [](const std::vector<Variable>& v) { return add(v[0], cube_with_wrong_backward(v[1])); };
  const GradcheckResult result = gradcheck(f, {other, x});
  REQUIRE_FALSE(result);
  // The first wrong entry: input 1, element [0, 0], output [0, 0]: analytic 2·1² vs numeric 3·1².
  CHECK_THAT(result.message, Contains("input 1 of shape [2, 2], element [0, 0]") &&
                                 Contains("output element [0, 0]") &&
                                 Contains("analytic 2,") && Contains("numeric 3") &&
                                 Contains("4 of 16 entries for input 1 differ"));
}

TEST_CASE("gradcheck: the tolerance follows |a - n| <= atol + rtol |n|", "[gradcheck_tool]") {
  // y = 1000 x with the backward off by 0.05%: inside rtol = 1e-3, outside rtol = 1e-4.
  auto f = [](const std::vector<Variable>& v) {
    return record("almost", mul(v[0].value(), 1000.0), {v[0]},
                  [](const Tensor& g) -> Grads { return {mul(g, 1000.5)}; });
  };
  const Tensor x = random_f64({3}, 3);
  CHECK(gradcheck(f, {x}));
  CHECK_FALSE(gradcheck(f, {x}, GradcheckOptions{1e-6, 1e-5, 1e-4}));
}

TEST_CASE("gradcheck: inputs must be float64", "[gradcheck_tool]") {
  auto f = [](const std::vector<Variable>& v) { return exp(v[0]); };
  REQUIRE_THROWS_WITH(gradcheck(f, {Tensor::ones({2}, DType::Float32)}),
                      Contains("input 0 must be float64") && Contains("float32 [2]"));
}

TEST_CASE("gradcheck: leaves the caller's tensors alone and keeps their layout",
          "[gradcheck_tool]") {
  const Tensor base = random_f64({3, 2}, 4);
  const Tensor transposed = base.t();  // [2, 3], not contiguous
  const std::vector<double> before = base.to_vector();
  bool saw_strided_input = false;
  auto f = [&](const std::vector<Variable>& v) {
    saw_strided_input = !v[0].value().is_contiguous();
    return exp(v[0]);
  };
  REQUIRE(gradcheck(f, {transposed}));
  CHECK(saw_strided_input);
  CHECK(base.to_vector() == before);
}

TEST_CASE("gradcheck: with respect to parameters a function closes over", "[gradcheck_tool]") {
  // A tiny linear layer: y = x Wᵀ + b, checked w.r.t. x, W and b.
  Variable weight(random_f64({2, 3}, 5), true);
  Variable bias(random_f64({2}, 6), true);
  auto layer = [&](const std::vector<Variable>& v) {
    return add(matmul(v[0], weight, Trans::No, Trans::Yes), bias);
  };
  const std::vector<double> weight_before = weight.value().to_vector();
  REQUIRE(gradcheck(layer, {random_f64({4, 3}, 7)}, {weight, bias}));
  CHECK(weight.value().to_vector() == weight_before);  // restored after perturbing
  CHECK_FALSE(weight.has_grad());

  SECTION("and names a parameter whose gradient is wrong") {
    auto wrong = [&](const std::vector<Variable>& v) {
      return add(v[0], cube_with_wrong_backward(bias));
    };
    const GradcheckResult result = gradcheck(wrong, {random_f64({2}, 8)}, {bias});
    REQUIRE_FALSE(result);
    CHECK_THAT(result.message, Contains("parameter 0 of shape [2], element [0]"));
  }
  SECTION("parameters must be leaves that require grad") {
    REQUIRE_THROWS_WITH(gradcheck(layer, {random_f64({4, 3}, 7)}, {weight.detach()}),
                        Contains("parameter 0 must be a leaf that requires grad"));
  }
}

TEST_CASE("gradcheck: a function that ignores its input has a zero Jacobian", "[gradcheck_tool]") {
  auto constant = [](const std::vector<Variable>&) {
    return Variable(Tensor::ones({2}, DType::Float64));
  };
  CHECK(gradcheck(constant, {random_f64({3}, 9)}));
}

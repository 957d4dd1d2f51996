// tests/autograd/test_variable.cpp — the Variable handle, record() and grad mode.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "autograd/variable.h"

using namespace atencion;
using Catch::Matchers::Contains;

TEST_CASE("Variable: a leaf holds a value, no grad and no op", "[variable]") {
  Variable x(Tensor::from({1.0, 2.0}, DType::Float64), /*requires_grad=*/true);
  CHECK(x.defined());
  CHECK(x.is_leaf());
  CHECK(x.op().empty());
  CHECK(x.requires_grad());
  CHECK_FALSE(x.has_grad());
  CHECK(x.shape() == Shape{2});
  CHECK(x.dtype() == DType::Float64);
  CHECK(x.value().to_vector() == std::vector<double>{1.0, 2.0});
  CHECK_FALSE(Variable().defined());
}

TEST_CASE("Variable: an op result remembers its op and inputs", "[variable]") {
  Variable x(Tensor::from({1.0, 2.0}, DType::Float64), true);
  Variable y = exp(x);
  CHECK_FALSE(y.is_leaf());
  CHECK(y.op() == "exp");
  CHECK(y.requires_grad());
  REQUIRE(y.node()->inputs().size() == 1);
  CHECK(y.node()->inputs()[0] == x.node());
}

TEST_CASE("record: nothing is recorded when no input requires grad", "[variable]") {
  Variable constant(Tensor::from({1.0, 2.0}, DType::Float64));
  Variable y = exp(constant);
  CHECK(y.is_leaf());
  CHECK_FALSE(y.requires_grad());
  CHECK(y.node()->inputs().empty());
}

TEST_CASE("Variable: requires_grad is for floating leaves only", "[variable]") {
  REQUIRE_THROWS_WITH(Variable(Tensor::from_ids({1, 2}, {2}), true),
                      Contains("only floating-point values have gradients, got int64 [2]"));
  Variable x(Tensor::from({1.0}, DType::Float64), true);
  Variable y = exp(x);
  REQUIRE_THROWS_WITH(y.set_requires_grad(false), Contains("computed by 'exp'"));
  x.set_requires_grad(false);
  CHECK_FALSE(x.requires_grad());
}

TEST_CASE("Variable: detach shares the value and drops the history", "[variable]") {
  Variable x(Tensor::from({1.0, 2.0}, DType::Float64), true);
  Variable y = mul(x, 2.0);
  Variable d = y.detach();
  CHECK(d.is_leaf());
  CHECK_FALSE(d.requires_grad());
  CHECK(d.value().storage() == y.value().storage());
}

TEST_CASE("Variable: an undefined Variable says so", "[variable]") {
  Variable undefined;
  REQUIRE_THROWS_WITH(undefined.value(), Contains("undefined"));
  Variable x(Tensor::from({1.0}, DType::Float64), true);
  REQUIRE_THROWS_WITH(add(x, undefined), Contains("undefined"));
  REQUIRE_THROWS_WITH(Variable(Tensor()), Contains("undefined"));
}

TEST_CASE("Variable: set_grad replaces .grad, of the value's shape and dtype only",
          "[variable]") {
  Variable weight(Tensor::from({1.0, 2.0}, DType::Float64), true);
  weight.set_grad(Tensor::from({0.5, -1.0}, DType::Float64));
  CHECK(weight.grad().to_vector() == std::vector<double>{0.5, -1.0});
  REQUIRE_THROWS_WITH(weight.set_grad(Tensor::from({1.0, 2.0, 3.0}, DType::Float64)),
                      "Variable::set_grad: a float64 [3] gradient for a float64 [2] value");
  REQUIRE_THROWS_WITH(weight.set_grad(Tensor::from({1.0, 2.0})),
                      "Variable::set_grad: a float32 [2] gradient for a float64 [2] value");
  // mutable_grad is the same tensor: scaling it in place scales the parameter's gradient,
  // seen through every handle.
  const Variable same = weight;
  mul_(weight.mutable_grad(), 2.0);
  CHECK(same.grad().to_vector() == std::vector<double>{1.0, -2.0});
  weight.set_grad(Tensor());  // as zero_grad
  CHECK_FALSE(same.has_grad());
}

TEST_CASE("Variable: retain_grad needs a value that requires grad", "[variable]") {
  Variable constant(Tensor::from({1.0}, DType::Float64));
  REQUIRE_THROWS_WITH(constant.retain_grad(), Contains("does not require grad"));
}

TEST_CASE("Variable: a value no Variable holds is dropped, the graph still runs backward",
          "[variable]") {
  Variable x(Tensor::from({1.0, -2.0, 3.0}), true);
  std::shared_ptr<Node> hidden_node;
  Variable loss;
  {
    Variable hidden = mul(x, 2.0);  // read only by relu below
    hidden_node = hidden.node();
    loss = sum(relu(hidden));
    REQUIRE(hidden_node->holds_value());
  }
  // The last Variable of `hidden` is gone: the node keeps shape and dtype, not the tensor.
  REQUIRE_FALSE(hidden_node->holds_value());
  REQUIRE(hidden_node->shape() == Shape{3});
  REQUIRE(hidden_node->dtype() == DType::Float32);
  // Only a new Variable made from the bare node could try to read it, and it is told why.
  REQUIRE_THROWS_WITH(Variable(hidden_node).value(), Contains("'mul_scalar' was dropped"));
  loss.backward();
  REQUIRE(x.grad().to_vector() == std::vector<double>{2.0, 0.0, 2.0});

  SECTION("copies and moves count: the value stays while any Variable holds it") {
    Variable a = mul(x, 3.0);
    Variable b = a;             // copy
    Variable c = std::move(a);  // move: still two handles
    b = Variable();             // one left
    REQUIRE(c.value().to_vector() == std::vector<double>{3.0, -6.0, 9.0});
    const Variable& same = c;
    c = same;                   // self-assignment keeps it
    REQUIRE(c.value().defined());
  }
  SECTION("retain_grad keeps the value too") {
    std::shared_ptr<Node> kept;
    {
      Variable y = mul(x, 4.0);
      y.retain_grad();
      kept = y.node();
    }
    REQUIRE(kept->holds_value());
  }
}

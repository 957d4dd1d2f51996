// tests/autograd/test_engine.cpp — the backward pass: chain rule, accumulation, reset, release.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"
#include "autograd/variable.h"

using namespace atencion;
using Catch::Matchers::Contains;

namespace {
Variable leaf(const NestedValues& values) {
  return Variable(Tensor::from(values, DType::Float64), /*requires_grad=*/true);
}
}  // namespace

TEST_CASE("backward: the chain rule on a small graph, by hand", "[engine]") {
  // docs/02-autograd.md#the-chain-rule-on-a-small-graph:  c = a * b,  d = c + a,  L = sum(d)
  Variable a = leaf({2.0, -1.0});
  Variable b = leaf({3.0, 4.0});
  Variable c = a * b;
  Variable d = c + a;
  Variable loss = sum(d);
  REQUIRE(loss.item() == Approx(2 * 3 + 2 + -1 * 4 + -1));
  loss.backward();
  // dL/da = dL/dd·(dd/dc·dc/da + dd/da) = b + 1;  dL/db = dL/dd·dd/dc·dc/db = a
  CHECK(a.grad().to_vector() == std::vector<double>{4.0, 5.0});
  CHECK(b.grad().to_vector() == std::vector<double>{2.0, -1.0});
  CHECK_FALSE(c.has_grad());  // a non-leaf keeps no .grad unless asked (retain_grad)
}

TEST_CASE("backward: a value used twice receives the sum of both gradients", "[engine]") {
  SECTION("x * x: d/dx = 2x") {
    Variable x = leaf({1.5, -2.0, 0.0});
    sum(x * x).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{3.0, -4.0, 0.0});
  }
  SECTION("x + x: d/dx = 2") {
    Variable x = leaf({1.5, -2.0});
    sum(x + x).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{2.0, 2.0});
  }
  SECTION("a residual a + tanh(a): d/da = 1 + (1 - tanh² a)") {
    Variable a = leaf({0.5, -1.0});
    sum(a + tanh(a)).backward();
    const std::vector<double> grad = a.grad().to_vector();
    CHECK(grad[0] == Approx(2 - std::pow(std::tanh(0.5), 2)));
    CHECK(grad[1] == Approx(2 - std::pow(std::tanh(-1.0), 2)));
  }
}

TEST_CASE("backward: gradients pile up across calls until zero_grad", "[engine]") {
  Variable x = leaf({1.0, 2.0});
  sum(mul(x, 3.0)).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{3.0, 3.0});
  sum(mul(x, 3.0)).backward();  // a second graph: adds, does not replace (as PyTorch)
  CHECK(x.grad().to_vector() == std::vector<double>{6.0, 6.0});
  x.zero_grad();
  CHECK_FALSE(x.has_grad());  // reset to "no gradient" (PyTorch's set_to_none=True)
  CHECK_FALSE(x.grad().defined());
  sum(mul(x, 3.0)).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{3.0, 3.0});
}

TEST_CASE("backward: .grad is a copy the caller may change in place", "[engine]") {
  // add's backward hands the same g to both inputs; scaling one .grad must not move the other.
  Variable a = leaf({1.0, 2.0});
  Variable b = leaf({3.0, 4.0});
  (a + b).backward(Tensor::from({1.0, 1.0}, DType::Float64));
  Tensor a_grad = a.grad();
  mul_(a_grad, 10.0);
  CHECK(a.grad().to_vector() == std::vector<double>{10.0, 10.0});
  CHECK(b.grad().to_vector() == std::vector<double>{1.0, 1.0});
}

TEST_CASE("backward: .grad is contiguous even when the gradient was a broadcast view",
          "[engine]") {
  // sum's backward repeats g with a stride-0 view; scaling .grad in place must scale each
  // element once (a stride-0 .grad would scale its one shared element three times).
  Variable x = leaf({1.0, 2.0, 3.0});
  sum(x).backward();
  Tensor x_grad = x.grad();
  CHECK(x_grad.is_contiguous());
  mul_(x_grad, 2.0);
  CHECK(x.grad().to_vector() == std::vector<double>{2.0, 2.0, 2.0});
}

TEST_CASE("backward: the caller's grad_output is never aliased by .grad", "[engine]") {
  Variable x = leaf({1.0, 2.0});
  Tensor grad_output = Tensor::from({1.0, 1.0}, DType::Float64);
  x.backward(grad_output);
  Tensor x_grad = x.grad();
  mul_(x_grad, 5.0);
  CHECK(grad_output.to_vector() == std::vector<double>{1.0, 1.0});
}

TEST_CASE("backward: an explicit grad_output, and checks on it", "[engine]") {
  Variable x = leaf({{1.0, 2.0}, {3.0, 4.0}});
  Variable y = mul(x, x);
  SECTION("dL/dx = grad_output * 2x") {
    y.backward(Tensor::from({{1.0, 0.0}, {0.5, -1.0}}, DType::Float64));
    CHECK(x.grad().to_vector() == std::vector<double>{2.0, 0.0, 3.0, -8.0});
  }
  SECTION("a non-scalar output needs grad_output") {
    REQUIRE_THROWS_WITH(y.backward(),
                        Contains("grad_output can be omitted only for a one-element output") &&
                            Contains("[2, 2]"));
  }
  SECTION("grad_output must have the output's shape and dtype") {
    REQUIRE_THROWS_WITH(y.backward(Tensor::ones({2}, DType::Float64)),
                        Contains("expected float64 [2, 2], got float64 [2]"));
    REQUIRE_THROWS_WITH(y.backward(Tensor::ones({2, 2}, DType::Float32)),
                        Contains("expected float64 [2, 2], got float32 [2, 2]"));
  }
}

TEST_CASE("backward: the graph is released unless retain_graph", "[engine]") {
  Variable x = leaf({1.0, 2.0});
  SECTION("retain_graph lets a second backward through the same graph") {
    Variable loss = sum(exp(x));
    loss.backward(/*retain_graph=*/true);
    loss.backward();
    CHECK(x.grad().at({0}) == Approx(2 * std::exp(1.0)));
  }
  SECTION("a second backward through a released graph names the op") {
    Variable loss = sum(exp(x));
    loss.backward();
    REQUIRE_THROWS_WITH(loss.backward(),
                        Contains("'sum' was already released") && Contains("retain_graph=true"));
  }
  SECTION("so does a new op built on a released value") {
    Variable y = exp(x);
    sum(y).backward();
    REQUIRE_THROWS_WITH(sum(mul(y, 2.0)).backward(), Contains("'exp' was already released"));
  }
  SECTION("released nodes keep their values and their op name") {
    Variable y = exp(x);
    sum(y).backward();
    CHECK(y.value().at({0}) == Approx(std::exp(1.0)));
    CHECK(y.op() == "exp");
    CHECK_FALSE(y.is_leaf());
    // what a released node shows: marked, without its links to the inputs
    CHECK(y.node()->released());
    CHECK(y.node()->inputs().empty());
  }
  SECTION("a retained graph is not released") {
    Variable y = exp(x);
    sum(y).backward(/*retain_graph=*/true);
    CHECK_FALSE(y.node()->released());
    CHECK(y.node()->inputs().size() == 1);
  }
}

TEST_CASE("backward: retain_grad keeps a non-leaf's gradient", "[engine]") {
  Variable x = leaf({1.0, -2.0});
  Variable hidden = mul(x, 3.0);
  hidden.retain_grad();
  Variable other = mul(x, 2.0);  // not retained
  sum(mul(hidden, hidden) + other).backward();
  CHECK(hidden.grad().to_vector() == std::vector<double>{6.0, -12.0});  // 2 * hidden
  CHECK_FALSE(other.has_grad());
  CHECK(x.grad().to_vector() == std::vector<double>{18.0 + 2.0, -36.0 + 2.0});
}

TEST_CASE("backward: inputs that do not require grad get nothing", "[engine]") {
  Variable x = leaf({1.0, 2.0});
  Variable constant(Tensor::from({5.0, 6.0}, DType::Float64));
  sum(x * constant).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{5.0, 6.0});
  CHECK_FALSE(constant.has_grad());
}

TEST_CASE("backward: on a value that does not require grad is an error", "[engine]") {
  Variable constant(Tensor::from({5.0}, DType::Float64));
  REQUIRE_THROWS_WITH(exp(constant).backward(), Contains("does not require grad"));
}

TEST_CASE("backward: a gradient of the wrong shape names the op that made it", "[engine]") {
  Variable x = leaf({1.0, 2.0, 3.0});
  Variable broken = record("broken_op", x.value().clone(), {x}, [](const Tensor&) -> Grads {
    return {Tensor::ones({2}, DType::Float64)};  // should be [3]
  });
  REQUIRE_THROWS_WITH(sum(broken).backward(),
                      Contains("'broken_op' produced a gradient of shape [2]") &&
                          Contains("input 0 of shape [3]"));
}

TEST_CASE("NoGradGuard: records nothing inside its scope, and nests", "[engine]") {
  Variable x = leaf({1.0, 2.0});
  REQUIRE(grad_mode_enabled());
  {
    NoGradGuard outer;
    CHECK_FALSE(grad_mode_enabled());
    Variable y = exp(x);
    CHECK_FALSE(y.requires_grad());
    CHECK(y.is_leaf());
    {
      NoGradGuard inner;
      CHECK_FALSE(grad_mode_enabled());
    }
    CHECK_FALSE(grad_mode_enabled());  // the inner guard restores "off", not "on"
    REQUIRE_THROWS_WITH(y.backward(Tensor::ones({2}, DType::Float64)),
                        Contains("does not require grad"));
  }
  CHECK(grad_mode_enabled());
  CHECK(exp(x).requires_grad());
}

TEST_CASE("backward: a chain of 100000 ops does not overflow the stack", "[engine]") {
  constexpr int depth = 100000;
  Variable x = leaf({1.0});
  SECTION("backward walks it, and releasing frees it") {
    Variable y = x;
    for (int i = 0; i < depth; ++i) y = add(y, 1e-5);
    REQUIRE(y.item() == Approx(2.0));
    y.backward();
    CHECK(x.grad().item() == 1.0);
  }
  SECTION("with scaling, the product of 100000 local derivatives") {
    Variable y = x;
    for (int i = 0; i < depth; ++i) y = mul(y, 1.00001);
    y.backward(/*retain_graph=*/true);  // the graph stays; dropping y then frees it iteratively
    CHECK(x.grad().item() == Approx(std::pow(1.00001, depth)));
  }
  SECTION("a graph that is never run backward is freed without recursion too") {
    Variable y = x;
    for (int i = 0; i < depth; ++i) y = neg(y);
    CHECK(y.item() == 1.0);
  }
}

namespace {
// A small network touching many ops: y = gelu(x W + b), normalised over features, scaled,
// log_softmax, the picked log-probabilities (gather), mean, plus a tanh² penalty.
// The same program in PyTorch is in the comment of the test below.
Variable small_network(const Variable& x, const Variable& weight, const Variable& bias) {
  Variable hidden = gelu(add(matmul(x, weight), bias));
  Variable centered = sub(hidden, mean(hidden, {-1}, true));
  Variable normalised = div(centered, sqrt(add(var(hidden, {-1}, 0, true), 1e-5)));
  Variable log_probabilities = log_softmax(mul(normalised, 2.0), -1);
  const Tensor targets = Tensor::from_ids({1, 2}, {2, 1});
  Variable penalty = mul(sum(pow(tanh(x), 2.0)), 0.1);
  return add(neg(mean(gather(log_probabilities, 1, targets))), penalty);
}
}  // namespace

TEST_CASE("backward: a small network matches PyTorch's gradients", "[engine]") {
  // f64 = dict(dtype=torch.float64, requires_grad=True)
  // x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], **f64)
  // w = torch.tensor([[0.1, -0.2, 0.7], [0.3, 0.4, -0.1], [-0.5, 0.6, 0.2]], **f64)
  // b = torch.tensor([0.05, -0.05, 0.1], **f64)
  // h = F.gelu(x @ w + b)
  // n = (h - h.mean(-1, keepdim=True)) / torch.sqrt(h.var(-1, keepdim=True, unbiased=False) + 1e-5)
  // loss = -torch.log_softmax(n * 2.0, -1).gather(1, torch.tensor([[1], [2]])).mean()
  //        + torch.tanh(x).pow(2).sum() * 0.1
  // loss.backward()
  Variable x(Tensor::from({{0.5, -1.0, 2.0}, {1.5, 0.25, -0.75}}, DType::Float64), true);
  Variable weight(
      Tensor::from({{0.1, -0.2, 0.7}, {0.3, 0.4, -0.1}, {-0.5, 0.6, 0.2}}, DType::Float64), true);
  Variable bias(Tensor::from({0.05, -0.05, 0.1}, DType::Float64), true);
  Variable loss = small_network(x, weight, bias);
  CHECK(loss.item() == Approx(1.2826937349135985).epsilon(1e-12));
  loss.backward();
  const std::vector<double> torch_x_grad{1.6633892806043182,   -1.1361099489729125,
                                         -0.9293256858128958,  -0.14116408395429106,
                                         0.1988021096452694,   -0.34496326104744063};
  const std::vector<double> torch_weight_grad{0.571659283469442,    -1.104484477637112,
                                              0.3663895740486348,   0.1925444388877502,
                                              2.197897550785435,    -1.7340676458834416,
                                              -0.48784757053139527, -4.394943455071732,
                                              3.545157483904281};
  const std::vector<double> torch_bias_grad{0.32124902489172447, -2.202155783281123,
                                            1.3489566851964523};
  CHECK(allclose(x.grad(), Tensor::from_vector(torch_x_grad, {2, 3}, DType::Float64), 1e-10,
                 1e-12));
  CHECK(allclose(weight.grad(), Tensor::from_vector(torch_weight_grad, {3, 3}, DType::Float64),
                 1e-10, 1e-12));
  CHECK(allclose(bias.grad(), Tensor::from_vector(torch_bias_grad, {3}, DType::Float64), 1e-10,
                 1e-12));

  SECTION("and gradcheck agrees, w.r.t. the input and both parameters") {
    Variable weight_copy(weight.value().clone(), true), bias_copy(bias.value().clone(), true);
    auto network = [&](const std::vector<Variable>& v) {
      return small_network(v[0], weight_copy, bias_copy);
    };
    CHECK(gradcheck(network, {x.value()}, {weight_copy, bias_copy}));
  }
  SECTION("and in float32 the same gradients to float32 precision") {
    Variable x32(x.value().to(DType::Float32), true);
    Variable weight32(weight.value().to(DType::Float32), true);
    Variable bias32(bias.value().to(DType::Float32), true);
    small_network(x32, weight32, bias32).backward();
    CHECK(x32.grad().dtype() == DType::Float32);
    CHECK(allclose(x32.grad().to(DType::Float64), x.grad(), 1e-4, 1e-5));
    CHECK(allclose(weight32.grad().to(DType::Float64), weight.grad(), 1e-4, 1e-5));
    CHECK(allclose(bias32.grad().to(DType::Float64), bias.grad(), 1e-4, 1e-5));
  }
}

TEST_CASE("backward: a leaf's gradient-ready hook runs once, when its .grad is final",
          "[engine]") {
  // L = sum(tanh(x * w1) * w2): w2's gradient is final before w1's, x's last of all.
  Variable x = leaf({0.5, -1.0}), w1 = leaf({2.0, 3.0}), w2 = leaf({-1.0, 4.0});
  std::vector<std::string> ready;
  std::vector<double> w1_grad_seen;
  w1.set_gradient_ready_hook([&] {
    ready.push_back("w1");
    w1_grad_seen = w1.grad().to_vector();
  });
  w2.set_gradient_ready_hook([&] { ready.push_back("w2"); });
  x.set_gradient_ready_hook([&] { ready.push_back("x"); });
  Variable loss = sum(tanh(x * w1) * w2);
  loss.backward();
  CHECK(ready.size() == 3);
  CHECK(ready.front() == "w2");
  CHECK(w1_grad_seen == w1.grad().to_vector());  // the hook saw the total
  // A leaf used twice calls its hook once, after both uses have sent their gradient.
  Variable y = leaf({2.0});
  int calls = 0;
  std::vector<double> seen;
  y.set_gradient_ready_hook([&] {
    ++calls;
    seen = y.grad().to_vector();
  });
  sum(mul(y, y) + mul(y, 3.0)).backward();
  CHECK(calls == 1);
  CHECK(seen == std::vector<double>{2 * 2.0 + 3.0});
  y.set_gradient_ready_hook({});  // removed
  y.zero_grad();
  sum(mul(y, 5.0)).backward();
  CHECK(calls == 1);
}

TEST_CASE("backward: a gradient-ready hook on a computed value is refused", "[engine]") {
  Variable x = leaf({1.0});
  Variable doubled = mul(x, 2.0);
  CHECK_THROWS_WITH(doubled.set_gradient_ready_hook([] {}),
                    Contains("Variable::set_gradient_ready_hook: only a leaf has a final "
                             "gradient, but this value was computed by 'mul"));
}

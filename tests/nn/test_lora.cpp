// tests/nn/test_lora.cpp — nn/lora.cpp and Linear's adapter (nn/linear.cpp):
// y = x Wᵀ + b + (α/r)·(x Aᵀ) Bᵀ, W frozen, B zero at start, merge W ← W + (α/r)·B A.
#include <catch2/catch.hpp>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"
#include "nn/linear.h"
#include "nn/lora.h"
#include "nn/multi_head_attention.h"
#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::nn;
using atencion::testing::random_f64;
using Catch::Matchers::Contains;

namespace {

std::vector<std::string> names_of(const std::vector<std::pair<std::string, Variable>>& named) {
  std::vector<std::string> names;
  for (const auto& [name, parameter] : named) names.push_back(name);
  return names;
}

}  // namespace

TEST_CASE("LoRA: an adapter starts as the layer it adapts (B = 0)", "[lora]") {
  Generator generator(0);
  Linear linear(6, 5, generator);
  Variable x(randn({3, 6}, generator));
  const Tensor before = linear(x).value();
  linear.add_lora(2, 4.0, generator);
  CHECK(linear.lora_A.shape() == Shape{2, 6});
  CHECK(linear.lora_B.shape() == Shape{5, 2});
  CHECK(linear.lora_scaling() == 2.0);
  CHECK(linear.type_name() == "Linear(in=6, out=5, bias=true, lora_rank=2)");
  CHECK(allclose(linear(x).value(), before, 0, 0));
}

TEST_CASE("LoRA: y = x Wᵀ + b + (α/r)·(x Aᵀ) Bᵀ, computed apart", "[lora]") {
  Generator generator(1);
  Linear linear(4, 3, generator);
  linear.to(DType::Float64);
  linear.add_lora(2, 3.0, generator);
  linear.lora_A.mutable_value() = random_f64({2, 4}, 11);
  linear.lora_B.mutable_value() = random_f64({3, 2}, 12);
  const Tensor x = random_f64({2, 5, 4}, 13);
  const Tensor base = add(matmul(x, linear.weight.value(), Trans::No, Trans::Yes),
                          linear.bias.value());
  // ΔW = B A [3, 4]; the update (α/r)·x ΔWᵀ = 1.5·x (B A)ᵀ.
  const Tensor delta = matmul(linear.lora_B.value(), linear.lora_A.value());
  const Tensor expected = add(base, mul(matmul(x, delta, Trans::No, Trans::Yes), 1.5));
  CHECK(allclose(linear(Variable(x)).value(), expected, 1e-12, 1e-12));
}

TEST_CASE("LoRA: float64 gradcheck w.r.t. the input, A and B", "[lora][gradcheck]") {
  Generator generator(2);
  for (bool bias : {true, false}) {
    Linear linear(4, 3, bias, generator);
    linear.to(DType::Float64);
    linear.add_lora(2, 8.0, generator);
    linear.lora_B.mutable_value() = random_f64({3, 2}, 21);  // B ≠ 0, so dA is not zero
    auto f = [&](const std::vector<Variable>& in) { return linear(in[0]); };
    REQUIRE(gradcheck(f, {random_f64({2, 3, 4}, 22)}, {linear.lora_A, linear.lora_B}));
  }
}

TEST_CASE("LoRA: W and b are frozen, only A and B receive gradients", "[lora]") {
  Generator generator(3);
  Linear linear(4, 3, generator);
  linear.add_lora(2, 2.0, generator);
  sum(linear(Variable(randn({5, 4}, generator)))).backward();
  CHECK_FALSE(linear.weight.has_grad());
  CHECK_FALSE(linear.bias.has_grad());
  CHECK(linear.lora_A.has_grad());  // dA = (α/r)·Bᵀ G x: zero while B is, but computed
  CHECK(linear.lora_B.has_grad());
  CHECK(names_of(trainable_parameters(linear)) == std::vector<std::string>{"lora_A", "lora_B"});
}

TEST_CASE("LoRA: adapters on the attention's q_proj and v_proj, merged gives the same output",
          "[lora]") {
  Generator generator(4);
  MultiHeadAttention attention(8, 2, generator);
  attention.to(DType::Float64);
  const auto names_before = names_of(attention.named_parameters());
  const auto adapted = add_lora(attention, {.rank = 2, .alpha = 4.0, .targets = {"q_proj", "v_proj"}},
                                generator);
  CHECK(adapted == std::vector<std::string>{"q_proj", "v_proj"});
  CHECK(names_of(trainable_parameters(attention)) ==
        std::vector<std::string>{"q_proj.lora_A", "q_proj.lora_B", "v_proj.lora_A",
                                 "v_proj.lora_B"});
  attention.q_proj->lora_B.mutable_value() = random_f64({8, 2}, 41);
  attention.v_proj->lora_B.mutable_value() = random_f64({8, 2}, 42);
  Variable x(random_f64({2, 3, 8}, 43));
  const Tensor adapted_output = attention(x, x, x).value();
  CHECK(merge_lora(attention) == 2);
  CHECK_FALSE(attention.q_proj->has_lora());
  CHECK(names_of(attention.named_parameters()) == names_before);
  CHECK(names_of(trainable_parameters(attention)) == names_before);
  CHECK(allclose(attention(x, x, x).value(), adapted_output, 1e-12, 1e-12));
}

TEST_CASE("LoRA: errors name the layer, the target and the range", "[lora]") {
  Generator generator(5);
  Linear linear(4, 3, generator);
  REQUIRE_THROWS_WITH(linear.add_lora(4, 1.0, generator),
                      Contains("add_lora: Linear(in=4, out=3, bias=true): rank 4 must be in [1, 3]"));
  REQUIRE_THROWS_WITH(linear.add_lora(2, 0.0, generator), Contains("alpha 0 must be a positive number"));
  REQUIRE_THROWS_WITH(linear.merge_lora(), Contains("merge_lora: Linear(in=4, out=3, bias=true): "
                                                    "the layer has no adapter"));
  linear.add_lora(2, 1.0, generator);
  REQUIRE_THROWS_WITH(linear.add_lora(2, 1.0, generator), Contains("already has an adapter"));
  MultiHeadAttention attention(8, 2, generator);
  REQUIRE_THROWS_WITH(add_lora(attention, {.rank = 2, .alpha = 4.0, .targets = {"c_attn"}}, generator),
                      Contains("add_lora: target 'c_attn' names no Linear layer of") &&
                          Contains("its Linear layers end in: k_proj, out_proj, q_proj, v_proj"));
  REQUIRE_THROWS_WITH(add_lora(attention, {.rank = 2, .alpha = 4.0, .targets = {}}, generator),
                      Contains("add_lora: no target layers named"));
}

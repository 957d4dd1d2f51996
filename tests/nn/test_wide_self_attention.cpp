// tests/nn/test_wide_self_attention.cpp — notebook 004's wide heads, against torch and gradcheck.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/heads.h"
#include "nn/scaled_dot_product_attention.h"
#include "nn/wide_self_attention.h"
#include "tensor/random.h"
#include "fixture.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("WideSelfAttention: shapes and parameters of wide heads", "[wide]") {
  Generator generator(30);
  WideSelfAttention attention(4, 3, generator);
  CHECK(attention.toqueries->weight.shape() == Shape{12, 4});  // k → k·heads, no bias
  CHECK_FALSE(attention.toqueries->has_bias());
  CHECK(attention.unifyheads->weight.shape() == Shape{4, 12});
  CHECK(attention.parameter_count() == 3 * 48 + 48 + 4);
  Variable x(randn({2, 5, 4}, generator));
  CHECK(attention(x).shape() == Shape{2, 5, 4});
  CHECK(attention.attention_weights().shape() == Shape{2, 3, 5, 5});
  CHECK(attention.type_name() == "WideSelfAttention(k=4, heads=3, causal=false)");
  REQUIRE_THROWS_WITH(
      attention(Variable(Tensor::zeros({2, 5, 3}))),
      Contains("WideSelfAttention(k=4, heads=3): input [2, 5, 3] must be [batch, t, 4]"));
}

TEST_CASE("WideSelfAttention: scaling q and k by k^(1/4) each is scaled dot-product attention",
          "[wide]") {
  Generator generator(31);
  WideSelfAttention attention(4, 2, generator);
  attention.to(DType::Float64);
  Variable x(randn({1, 3, 4}, generator, DType::Float64));
  Tensor output = attention(x).value();
  // The same heads through ScaledDotProductAttention, which divides the product by √k.
  ScaledDotProductAttention scaled;
  AttentionObserver observer;
  Variable heads_output =
      scaled(split_heads((*attention.toqueries)(x), 2), split_heads((*attention.tokeys)(x), 2),
             split_heads((*attention.tovalues)(x), 2), Tensor(), &observer);
  Tensor expected = (*attention.unifyheads)(merge_heads(heads_output)).value();
  CHECK(allclose(output, expected, 1e-12, 1e-12));
  CHECK(allclose(attention.attention_weights(), observer.weights(scaled), 1e-12, 1e-12));
}

TEST_CASE("WideSelfAttention: equals notebook 004's module in torch", "[wide][fixture]") {
  using namespace atencion::testing;
  for (const char* name : {"wide_self_attention_f64", "wide_self_attention_causal_f64"}) {
    INFO("fixture " << name);
    Fixture fixture(name);
    Generator generator(0);
    WideSelfAttention attention(fixture.meta_int("k"), fixture.meta_int("heads"),
                                fixture.meta_flag("causal"), generator);
    attention.to(DType::Float64);
    attention.load_state_dict(fixture.parameters());
    Variable x = fixture.input_variable("x");
    Variable output = attention(x);
    REQUIRE(matches(output.value(), fixture.output()));
    REQUIRE(matches(attention.attention_weights(), fixture.attention_weights()));
    output.backward(fixture.grad_output());
    REQUIRE(matches(x.grad(), fixture.grad_input("x")));
    require_parameter_grads_match(attention, fixture);
  }
}

TEST_CASE("WideSelfAttention: float64 gradchecks, plain and causal", "[wide][gradcheck]") {
  Generator generator(32);
  for (bool causal : {false, true}) {
    WideSelfAttention attention(3, 2, causal, generator);
    attention.to(DType::Float64);
    auto result = gradcheck([&](const std::vector<Variable>& in) { return attention(in[0]); },
                            {randn({2, 4, 3}, generator, DType::Float64)}, attention.parameters());
    INFO("causal " << causal << ": " << result.message);
    CHECK(result.ok);
  }
}

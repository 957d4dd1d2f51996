// exercises/causal_mask/judge.cpp — judges exercise::causal_mask.
// Lesson: docs/07-masked-attention.md
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "exercises/causal_mask/causal_mask.h"
#include "exercises/judge_report.h"
#include "nn/fixture.h"
#include "nn/multi_head_attention.h"
#include "nn/scaled_dot_product_attention.h"
#include "tensor/random.h"

using namespace atencion;

TEST_CASE("causal_mask: query i sees keys 0 to i", "[exercise]") {
  Tensor mask = exercise::causal_mask(3);
  REQUIRE(mask.dtype() == DType::Bool);
  REQUIRE(mask.shape() == Shape{3, 3});
  INFO("row i is query i, column j key j; 1 = may attend");
  CHECK(mask.to(DType::Float64).contiguous().to_vector() ==
        std::vector<double>{1, 0, 0,    //
                            1, 1, 0,    //
                            1, 1, 1});  //
  CHECK(exercise::causal_mask(0).shape() == Shape{0, 0});
}

TEST_CASE("causal_mask: a later token cannot change an earlier output", "[exercise]") {
  Generator generator(70);
  Tensor x = randn({5, 4}, generator, DType::Float64);
  nn::ScaledDotProductAttention attention;
  const Tensor mask = exercise::causal_mask(5);
  Tensor before = attention(Variable(x), Variable(x), Variable(x), mask).value();
  Tensor changed = x.clone();
  for (int64_t feature = 0; feature < 4; ++feature) changed.set({4, feature}, 100.0);
  Tensor after = attention(Variable(changed), Variable(changed), Variable(changed), mask).value();
  INFO("outputs 0..3 must not see token 4");
  CHECK(judge::close_to(before.narrow(0, 0, 4), after.narrow(0, 0, 4), 0, 0));
}

TEST_CASE("causal_mask: masked multi-head attention with yours equals torch's", "[exercise]") {
  using namespace atencion::testing;
  Fixture fixture("mha_causal_f64");
  Generator generator(0);
  nn::MultiHeadAttention attention(fixture.meta_int("embed_dim"), fixture.meta_int("num_heads"),
                                   generator);
  attention.to(fixture.dtype());
  attention.load_state_dict(fixture.parameters());
  Variable x = fixture.input_variable("x");
  Variable output = attention(x, x, x, exercise::causal_mask(x.size(1)));
  CHECK(judge::close_to(output.value(), fixture.output()));
}

// exercises/split_heads/judge.cpp — judges exercise::split_heads and exercise::merge_heads.
// Lesson: docs/06-multi-head-attention.md#split-and-concat
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "exercises/split_heads/split_heads.h"
#include "exercises/judge_report.h"
#include "nn/fixture.h"
#include "nn/multi_head_attention.h"
#include "tensor/random.h"

using namespace atencion;

TEST_CASE("split_heads: head i holds the block of features i·head_dim up to (i+1)·head_dim",
          "[exercise]") {
  // x[0, t, f] = 10·t + f: two tokens, six features, three heads of two.
  Tensor x = Tensor::from({{{0, 1, 2, 3, 4, 5}, {10, 11, 12, 13, 14, 15}}});
  Tensor heads = exercise::split_heads(Variable(x), 3).value();
  REQUIRE(heads.shape() == Shape{1, 3, 2, 2});
  INFO("expected head 0 = features 0, 1 of each token; head 1 = 2, 3; head 2 = 4, 5");
  CHECK(heads.contiguous().to_vector() == std::vector<double>{0, 1, 10, 11,    // head 0
                                                              2, 3, 12, 13,    // head 1
                                                              4, 5, 14, 15});  // head 2
}

TEST_CASE("split_heads: shapes, and merge_heads undoes it", "[exercise]") {
  Generator generator(8);
  Tensor x = randn({2, 5, 12}, generator);
  Variable heads = exercise::split_heads(Variable(x), 4);
  REQUIRE(heads.shape() == Shape{2, 4, 5, 3});
  Variable back = exercise::merge_heads(heads);
  REQUIRE(back.shape() == Shape{2, 5, 12});
  CHECK(judge::close_to(back.value(), x, 0, 0));
}

TEST_CASE("split_heads: gradients flow back through split and merge", "[exercise]") {
  Generator generator(9);
  const Tensor weights = randn({2, 3, 8}, generator, DType::Float64);
  auto f = [&](const std::vector<Variable>& in) {
    Variable heads = exercise::split_heads(in[0], 2);
    // Weighting by a fixed tensor gives every element a gradient of its own.
    return sum(mul(exercise::merge_heads(mul(heads, 2.0)), Variable(weights)));
  };
  auto result = gradcheck(f, {randn({2, 3, 8}, generator, DType::Float64)});
  INFO(judge::short_lines(result.message));
  CHECK(result.ok);
}

TEST_CASE("split_heads: multi-head attention built on yours equals torch.nn.MultiheadAttention",
          "[exercise][fixture]") {
  using namespace atencion::testing;
  for (const char* name : {"mha_self_f64", "mha_cross_padding_f64"}) {
    INFO("fixture " << name << " (PyTorch's output for the same weights and inputs)");
    Fixture fixture(name);
    Generator generator(0);
    const int64_t heads = fixture.meta_int("num_heads");
    nn::MultiHeadAttention attention(fixture.meta_int("embed_dim"), heads, generator);
    attention.to(fixture.dtype());
    attention.load_state_dict(fixture.parameters());
    const bool self = fixture.meta("use") == "self";
    Variable query = fixture.input_variable(self ? "x" : "query");
    Variable memory = self ? query : fixture.input_variable("memory");

    // The module's forward, with your split and concat: project, split, attend, concat, project.
    Variable query_heads = exercise::split_heads((*attention.q_proj)(query), heads);
    Variable key_heads = exercise::split_heads((*attention.k_proj)(memory), heads);
    Variable value_heads = exercise::split_heads((*attention.v_proj)(memory), heads);
    Variable head_outputs = (*attention.attention)(query_heads, key_heads, value_heads,
                                                   fixture.mask());
    Variable output = (*attention.out_proj)(exercise::merge_heads(head_outputs));
    REQUIRE(judge::close_to(output.value(), fixture.output()));
    output.backward(fixture.grad_output());
    CHECK(judge::close_to(query.grad(), fixture.grad_input(self ? "x" : "query")));
  }
}

// tests/nn/test_heads.cpp — nn/heads.cpp: the paper's contiguous block per head.
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/heads.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("split_heads: head i holds features i·head_dim up to (i+1)·head_dim", "[heads]") {
  // x[0, t, f] = 10·t + f: two tokens, six features, three heads of two.
  Tensor x = Tensor::from({{{0, 1, 2, 3, 4, 5}, {10, 11, 12, 13, 14, 15}}});
  Tensor heads = split_heads(Variable(x), 3).value();
  CHECK(heads.shape() == Shape{1, 3, 2, 2});
  CHECK(heads.contiguous().to_vector() == std::vector<double>{0, 1, 10, 11,    // head 0
                                                              2, 3, 12, 13,    // head 1
                                                              4, 5, 14, 15});  // head 2
  // Notebook 002's split (view [b, s, d/h, h]) would have given a head the features 0, 3
  // (stride h) when read along its last axis: not the block layout of the paper or of torch.
}

TEST_CASE("merge_heads undoes split_heads (the paper's Concat)", "[heads]") {
  Generator generator(8);
  Tensor x = randn({2, 5, 12}, generator);
  Tensor back = merge_heads(split_heads(Variable(x), 4)).value();
  CHECK(back.shape() == Shape{2, 5, 12});
  CHECK(allclose(back, x, 0, 0));
}

TEST_CASE("split_heads / merge_heads: errors and gradients", "[heads][gradcheck]") {
  REQUIRE_THROWS_WITH(split_heads(Variable(Tensor::zeros({1, 2, 6})), 4),
                      Contains("split_heads: input [1, 2, 6]") && Contains("divisible by 4 heads"));
  REQUIRE_THROWS_WITH(
      merge_heads(Variable(Tensor::zeros({2, 6}))),
      Contains("merge_heads: input [2, 6] must be [batch, heads, tokens, head_dim]"));
  Generator generator(9);
  // Weighting the output by a fixed random tensor makes every position's gradient distinct.
  Tensor weights = randn({2, 3, 3, 2}, generator, DType::Float64);
  auto result = gradcheck(
      [&](const std::vector<Variable>& in) {
        return mul(split_heads(in[0], 3), Variable(weights));
      },
      {randn({2, 3, 6}, generator, DType::Float64)});
  INFO(result.message);
  CHECK(result.ok);
  auto merged = gradcheck([&](const std::vector<Variable>& in) { return merge_heads(in[0]); },
                          {randn({2, 3, 4, 2}, generator, DType::Float64)});
  INFO(merged.message);
  CHECK(merged.ok);
}

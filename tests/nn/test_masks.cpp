// tests/nn/test_masks.cpp — nn/masks.cpp: causal, padding, combined (true = may attend).
#include <catch2/catch.hpp>

#include "nn/masks.h"
#include "tensor/ops.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("causal_mask: query i sees keys 0..i", "[masks]") {
  Tensor mask = causal_mask(3);
  CHECK(mask.dtype() == DType::Bool);
  CHECK(mask.shape() == Shape{3, 3});
  CHECK(mask.to_ids() == std::vector<int64_t>{1, 0, 0,
                                              1, 1, 0,
                                              1, 1, 1});
  CHECK(causal_mask(0).numel() == 0);
  REQUIRE_THROWS_WITH(causal_mask(-1), Contains("causal_mask"));
}

TEST_CASE("causal_mask_after: new queries after a cache see the past and themselves", "[masks]") {
  Tensor mask = causal_mask_after(2, 3);  // queries at positions 2, 3, 4 of keys 0..4
  CHECK(mask.dtype() == DType::Bool);
  CHECK(mask.shape() == Shape{3, 5});
  CHECK(mask.to_ids() == std::vector<int64_t>{1, 1, 1, 0, 0,
                                              1, 1, 1, 1, 0,
                                              1, 1, 1, 1, 1});
  CHECK(causal_mask_after(0, 3).to_ids() == causal_mask(3).to_ids());
  CHECK_FALSE(causal_mask_after(7, 1).defined());  // one new position sees everything
  REQUIRE_THROWS_WITH(causal_mask_after(-1, 2),
                      Contains("causal_mask_after: past -1 and queries 2: both must be >= 0"));
}

TEST_CASE("padding_mask: real tokens true, padding false, [batch, 1, 1, n]", "[masks]") {
  Tensor mask = padding_mask({3, 1}, 4);
  CHECK(mask.shape() == Shape{2, 1, 1, 4});
  CHECK(mask.to_ids() == std::vector<int64_t>{1, 1, 1, 0,
                                              1, 0, 0, 0});
  REQUIRE_THROWS_WITH(padding_mask({5}, 4), Contains("length 5 of sequence 0 is outside [0, 4]"));
}

TEST_CASE("combine_masks: logical and, broadcasting to [batch, 1, n, n]", "[masks]") {
  Tensor both = combine_masks(padding_mask({2, 3}, 3), causal_mask(3));
  CHECK(both.shape() == Shape{2, 1, 3, 3});
  CHECK(both.to_ids() == std::vector<int64_t>{1, 0, 0,  1, 1, 0,  1, 1, 0,
                                              1, 0, 0,  1, 1, 0,  1, 1, 1});
  CHECK_FALSE(combine_masks(Tensor(), Tensor()).defined());
  CHECK(combine_masks(Tensor(), causal_mask(2)).shape() == Shape{2, 2});
  REQUIRE_THROWS_WITH(combine_masks(causal_mask(2), Tensor::ones({2, 2})),
                      Contains("masks must be bool"));
}

TEST_CASE("masks: torch's convention is the opposite one", "[masks]") {
  // torch.nn.Transformer.generate_square_subsequent_mask marks the future with True (or -inf);
  // its logical_not is our causal mask.
  Tensor torch_future = Tensor::from({{0, 1, 1}, {0, 0, 1}, {0, 0, 0}}).to(DType::Bool);
  CHECK(logical_not(torch_future).to_ids() == causal_mask(3).to_ids());
}

// tests/tensor/test_compare.cpp — masks, where, masked_fill, allclose (tensor/compare.cpp).
#include <catch2/catch.hpp>
#include <cstring>
#include <cmath>
#include <limits>

#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;
using Catch::Contains;

using Ids = std::vector<int64_t>;

TEST_CASE("comparisons give bool masks and broadcast", "[compare]") {
  Tensor a = Tensor::from({{1, 2, 3}, {4, 5, 6}});
  Tensor b = Tensor::from({3, 2, 1});
  CHECK(eq(a, b).dtype() == DType::Bool);
  CHECK(eq(a, b).to_ids() == Ids{0, 1, 0, 0, 0, 0});
  CHECK(ne(a, b).to_ids() == Ids{1, 0, 1, 1, 1, 1});
  CHECK(lt(a, b).to_ids() == Ids{1, 0, 0, 0, 0, 0});
  CHECK(le(a, b).to_ids() == Ids{1, 1, 0, 0, 0, 0});
  CHECK(gt(a, b).to_ids() == Ids{0, 0, 1, 1, 1, 1});
  CHECK(ge(a, b).to_ids() == Ids{0, 1, 1, 1, 1, 1});
  CHECK(gt(a, 4.0).to_ids() == Ids{0, 0, 0, 0, 1, 1});
  CHECK(lt(a, 2.0).to_ids() == Ids{1, 0, 0, 0, 0, 0});
  CHECK(eq(a, 5.0).to_ids() == Ids{0, 0, 0, 0, 1, 0});
}

TEST_CASE("ids compare too: a padding mask", "[compare]") {
  Tensor ids = Tensor::from_ids({5, 9, 0, 0}, {1, 4});
  CHECK(eq(ids, 0.0).to_ids() == Ids{0, 0, 1, 1});
  REQUIRE_THROWS_WITH(eq(ids, Tensor::zeros({4})), Contains("eq: dtype mismatch int64 vs float32"));
}

TEST_CASE("logical_and and logical_not", "[compare]") {
  Tensor causal = Tensor::from({{1, 0}, {1, 1}}, DType::Bool);
  Tensor keep = Tensor::from({1, 0}, DType::Bool);  // broadcast over rows
  CHECK(logical_and(causal, keep).to_ids() == Ids{1, 0, 1, 0});
  CHECK(logical_not(causal).to_ids() == Ids{0, 1, 0, 0});
  REQUIRE_THROWS_WITH(logical_and(causal, Tensor::zeros({2})),
                      Contains("logical_and: the second operand must be a bool tensor"));
}

TEST_CASE("logical_not takes every dtype, non-zero as true, as torch.logical_not", "[compare]") {
  // A 0/1 int64 mask, as a PyTorch user often has one.
  const Tensor ids = Tensor::from_ids({0, 1, 7, -3, 0}, {5});
  CHECK(logical_not(ids).dtype() == DType::Bool);
  CHECK(logical_not(ids).to_ids() == Ids{1, 0, 0, 0, 1});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const Tensor values = Tensor::from_vector({0.0, -0.0, 0.5, -2.0, nan, inf}, {2, 3}, dtype);
    const Tensor result = logical_not(values);
    CHECK(result.shape() == Shape{2, 3});
    CHECK(result.to_ids() == Ids{1, 1, 0, 0, 0, 0});  // torch: True True False False False False
  }
  // A strided view: the transposed int64 mask.
  const Tensor grid = Tensor::from_ids({0, 2, 3, 0}, {2, 2});
  CHECK(logical_not(grid.transpose(0, 1)).to_ids() == Ids{1, 0, 0, 1});
  REQUIRE_THROWS_WITH(logical_not(Tensor()), Contains("logical_not"));
}

TEST_CASE("where picks a where the mask is true, b elsewhere, broadcasting all three",
          "[compare]") {
  Tensor mask = Tensor::from({1, 0, 1}, DType::Bool);
  Tensor a = Tensor::from({{1, 2, 3}, {4, 5, 6}});
  Tensor b = Tensor::scalar(-1);
  Tensor out = where(mask, a, b);
  CHECK(out.shape() == Shape{2, 3});
  CHECK(out.to_vector() == std::vector<double>{1, -1, 3, 4, -1, 6});
  REQUIRE_THROWS_WITH(where(Tensor::from({1, 0, 1}), a, b),
                      Contains("where: the mask must be a bool tensor, got float32"));
  REQUIRE_THROWS_WITH(where(mask, a, Tensor::scalar(0, DType::Float64)),
                      Contains("where: dtype mismatch float32 vs float64"));
  REQUIRE_THROWS_WITH(where(Tensor::zeros({4}, DType::Bool), a, b),
                      Contains("where: shapes [4] and [2, 3] cannot be broadcast"));
}

TEST_CASE("where with two single values equals where with full tensors", "[compare]") {
  // Dropout's shape of call: a large mask (threads split it) choosing between two scalars.
  Generator generator(9);
  const Tensor mask = ge(rand({3, 20000}, generator), Tensor::scalar(0.25));
  const Tensor kept = Tensor::scalar(4.0 / 3.0), dropped = Tensor::from({{0.0}});  // [1, 1]
  const Tensor out = where(mask, kept, dropped);
  CHECK(out.shape() == Shape{3, 20000});
  const Tensor expected =
      where(mask, Tensor::full({3, 20000}, 4.0 / 3.0), Tensor::zeros({3, 20000}));
  CHECK(out.to_vector() == expected.to_vector());
  CHECK(where(Tensor::from({1, 0}, DType::Bool), Tensor::scalar(2), Tensor::from({{{-1}}}))
            .to_vector() == std::vector<double>{2, -1});  // shape [1, 1, 2]
  // One single value and one tensor (relu's backward: g where x > 0, else 0), either side.
  const Tensor g = randn({3, 20000}, generator);
  CHECK(where(mask, g, Tensor::scalar(0)).to_vector() ==
        where(mask, g, Tensor::zeros({3, 20000})).to_vector());
  CHECK(where(mask, Tensor::scalar(0), g).to_vector() ==
        where(mask, Tensor::zeros({3, 20000}), g).to_vector());
}

TEST_CASE("where and masked_fill pass every value through bit for bit (branchless select)",
          "[compare]") {
  // detail::select picks by bit masks: the chosen value must come out unchanged, -0, NaN and
  // infinities included, for every dtype; checked against a plain loop.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> a_values{-0.0, nan, inf, -inf, 1.5, -2.25, 0.0, 3e38};
  const std::vector<double> b_values{1.0, -0.0, -1.0, nan, inf, 0.0, -7.0, -3e38};
  const Tensor mask = Tensor::from({1, 0, 1, 0, 1, 1, 0, 0}, DType::Bool);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const Tensor a = Tensor::from_vector(a_values, {8}, dtype);
    const Tensor b = Tensor::from_vector(b_values, {8}, dtype);
    const std::vector<double> out = where(mask, a, b).to_vector();
    const std::vector<double> filled = masked_fill(b, mask, -0.0).to_vector();
    for (size_t i = 0; i < 8; ++i) {
      const bool m = mask.to_vector()[i] != 0;
      const double expected = m ? a.to_vector()[i] : b.to_vector()[i];
      INFO("element " << i << " dtype " << dtype_name(dtype));
      CHECK(std::memcmp(&out[i], &expected, sizeof(double)) == 0);
      const double expected_fill = m ? -0.0 : b.to_vector()[i];
      CHECK(std::memcmp(&filled[i], &expected_fill, sizeof(double)) == 0);
    }
  }
  const Tensor ids =
      where(mask, Tensor::from({-5}, DType::Int64), Tensor::arange(0, 8, 1, DType::Int64));
  CHECK(ids.to_vector() == std::vector<double>{-5, 1, -5, 3, -5, -5, 6, 7});
  const Tensor bools = where(mask, Tensor::from({0}, DType::Bool), Tensor::from({1}, DType::Bool));
  CHECK(bools.to_vector() == std::vector<double>{0, 1, 0, 1, 0, 0, 1, 1});
}

TEST_CASE("masked_fill writes the value where the mask is true", "[compare]") {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor scores = Tensor::from({{1, 2}, {3, 4}});
  Tensor upper = Tensor::from({{0, 1}, {0, 0}}, DType::Bool);  // hide the future
  Tensor masked = masked_fill(scores, upper, -inf);
  CHECK(masked.at({0, 0}) == 1);
  CHECK(masked.at({0, 1}) == -inf);
  CHECK(masked.at({1, 1}) == 4);
  CHECK(scores.at({0, 1}) == 2);  // not in place
  // A [2] mask broadcasts over rows.
  CHECK(masked_fill(scores, Tensor::from({1, 0}, DType::Bool), 0).to_vector() ==
        std::vector<double>{0, 2, 0, 4});
  REQUIRE_THROWS_WITH(masked_fill(scores, Tensor::zeros({2, 2}), 0),
                      Contains("masked_fill: the mask must be a bool tensor, got float32"));
  REQUIRE_THROWS_WITH(masked_fill(Tensor::zeros({2}), Tensor::zeros({2, 2}, DType::Bool), 0),
                      Contains("masked_fill: mask of shape [2, 2] does not broadcast to [2]"));
}

TEST_CASE("allclose uses |a - b| <= atol + rtol * |b|", "[compare]") {
  Tensor a = Tensor::from({1.0, 100.0}, DType::Float64);
  CHECK(allclose(a, Tensor::from({1.0 + 1e-6, 100.0 + 1e-4}, DType::Float64)));
  CHECK_FALSE(allclose(a, Tensor::from({1.0 + 1e-4, 100.0}, DType::Float64)));
  CHECK(allclose(a, Tensor::from({1.1, 100.0}, DType::Float64), 0, 0.2));
  CHECK(allclose(a, a.to(DType::Float32)));  // dtypes may differ
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_FALSE(allclose(Tensor::from({nan}), Tensor::from({nan})));
  CHECK(allclose(Tensor::from({inf}), Tensor::from({inf})));
  CHECK_FALSE(allclose(Tensor::from({inf}), Tensor::from({-inf})));
  REQUIRE_THROWS_WITH(allclose(Tensor::zeros({2}), Tensor::zeros({3})),
                      Contains("allclose: shapes [2] and [3] cannot be broadcast"));
}

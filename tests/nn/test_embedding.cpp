// tests/nn/test_embedding.cpp — nn/embedding.cpp: lookup, padding row, gradient.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/embedding.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("Embedding: rows of the table by id, N(0, 1) init, padding row zero", "[embedding]") {
  Generator generator(1);
  Embedding embedding(50, 40, /*padding_idx=*/3, generator);
  REQUIRE(embedding.weight.shape() == Shape{50, 40});
  REQUIRE(embedding.type_name() == "Embedding(vocab=50, d_model=40, padding_idx=3)");
  const Tensor& table = embedding.weight.value();
  for (int64_t j = 0; j < 40; ++j) REQUIRE(table.at({3, j}) == 0.0);
  // N(0, 1): over 1960 draws the mean is near 0 and the variance near 1.
  const double mean_value = mean(table).item(), variance = var(table).item();
  REQUIRE(std::abs(mean_value) < 0.1);
  REQUIRE(variance == Approx(1.0).margin(0.1));

  const Tensor ids = Tensor::from_ids({7, 3, 7, 0, 49, 1}, {2, 3});
  Variable rows = embedding(ids);
  REQUIRE(rows.shape() == Shape{2, 3, 40});
  REQUIRE(rows.value().at({1, 1, 5}) == table.at({49, 5}));
  REQUIRE(rows.value().at({0, 2, 9}) == table.at({7, 9}));
}

TEST_CASE("Embedding: gradient adds into each id's row, the padding row gets none", "[embedding]") {
  Generator generator(2);
  Embedding embedding(5, 2, /*padding_idx=*/0, generator);
  const Tensor ids = Tensor::from_ids({1, 0, 1, 4}, {4});
  sum(embedding(ids) * 2.0).backward();
  const Tensor& grad = embedding.weight.grad();
  REQUIRE(grad.at({1, 0}) == 4.0);  // id 1 used twice: 2 + 2
  REQUIRE(grad.at({4, 1}) == 2.0);
  REQUIRE(grad.at({0, 0}) == 0.0);  // padding
  REQUIRE(grad.at({2, 0}) == 0.0);  // unused
}

TEST_CASE("Embedding: gradcheck w.r.t. the table in float64", "[embedding][gradcheck]") {
  // Without a padding row: there the true derivative is not 0 (the row is read), and the zero
  // gradient is a rule, checked by value above.
  Generator generator(3);
  Embedding embedding(6, 3, generator);
  embedding.to(DType::Float64);
  const Tensor ids = Tensor::from_ids({5, 2, 0, 5, 1, 3}, {2, 3});
  const auto result = gradcheck(
      [&](const std::vector<Variable>&) { return embedding(ids); }, {}, embedding.parameters());
  INFO(result.message);
  REQUIRE(result.ok);
}

TEST_CASE("Embedding: bad ids and sizes are refused", "[embedding]") {
  Generator generator(4);
  Embedding embedding(5, 2, generator);
  REQUIRE_THROWS_AS(embedding(Tensor::from_ids({5}, {1})), std::out_of_range);
  REQUIRE_THROWS_WITH(embedding(Tensor::zeros({2})), Contains("expected int64"));
  REQUIRE_THROWS_WITH(Embedding(5, 2, 5, generator), Contains("padding_idx < vocab"));
}

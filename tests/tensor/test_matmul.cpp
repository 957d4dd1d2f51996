// tests/tensor/test_matmul.cpp — matmul against matmul_reference and hand values
// (tensor/matmul.cpp).
#include <catch2/catch.hpp>

#include "tensor/ops.h"
#include "tensor/random.h"
#include "tensor/threads.h"

using namespace atencion;
using Catch::Contains;

TEST_CASE("matmul of a small matrix pair, by hand", "[matmul]") {
  Tensor a = Tensor::from({{1, 2, 3}, {4, 5, 6}});       // [2, 3]
  Tensor b = Tensor::from({{7, 8}, {9, 10}, {11, 12}});  // [3, 2]
  // [1*7 + 2*9 + 3*11, 1*8 + 2*10 + 3*12] = [58, 64]; [4*7 + 5*9 + 6*11, ...] = [139, 154]
  const std::vector<double> expected{58, 64, 139, 154};
  CHECK(matmul(a, b).to_vector() == expected);
  CHECK(matmul_reference(a, b).to_vector() == expected);
  // The same product written with transposes: a = (aᵀ)ᵀ, b = (bᵀ)ᵀ.
  Tensor a_t = a.t().contiguous();
  Tensor b_t = b.t().contiguous();
  CHECK(matmul(a_t, b, Trans::Yes, Trans::No).to_vector() == expected);
  CHECK(matmul(a, b_t, Trans::No, Trans::Yes).to_vector() == expected);
  CHECK(matmul(a_t, b_t, Trans::Yes, Trans::Yes).to_vector() == expected);
  CHECK(matmul_reference(a_t, b_t, Trans::Yes, Trans::Yes).to_vector() == expected);
  // A transposed view as operand (no flag): read through its strides.
  CHECK(matmul(a_t.t(), b_t.t()).to_vector() == expected);
}

TEST_CASE("matmul equals matmul_reference on odd shapes, every transpose combination", "[matmul]") {
  Generator generator(7);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const double tolerance = dtype == DType::Float32 ? 1e-4 : 1e-12;
    for (auto [m, k, n] :
         {std::tuple{1, 1, 1}, {3, 5, 7}, {17, 33, 9}, {64, 65, 63}, {1, 129, 2}}) {
      for (Trans trans_a : {Trans::No, Trans::Yes}) {
        for (Trans trans_b : {Trans::No, Trans::Yes}) {
          const Shape a_shape = trans_a == Trans::Yes ? Shape{k, m} : Shape{m, k};
          const Shape b_shape = trans_b == Trans::Yes ? Shape{n, k} : Shape{k, n};
          Tensor a = randn(a_shape, generator, dtype);
          Tensor b = randn(b_shape, generator, dtype);
          Tensor fast = matmul(a, b, trans_a, trans_b);
          CHECK(fast.shape() == Shape{m, n});
          CHECK(allclose(fast, matmul_reference(a, b, trans_a, trans_b), tolerance, tolerance));
        }
      }
    }
  }
}

// Two matrices go straight to gemm (matmul's short path); with a batch dim of 1 they take the
// general one. Same bits either way: on transposes, transposed views, rows wider than the
// matrix (a column slice), and the small sizes of the direct tiles.
TEST_CASE("two matrices give the bits of the same product as a batch of one", "[matmul]") {
  Generator generator(13);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    for (auto [m, k, n] : {std::tuple{1, 1, 1}, {20, 32, 20}, {33, 17, 65}, {64, 64, 64}}) {
      for (Trans trans_a : {Trans::No, Trans::Yes}) {
        for (Trans trans_b : {Trans::No, Trans::Yes}) {
          INFO(m << "x" << k << "x" << n << " " << dtype_name(dtype));
          const Shape a_shape = trans_a == Trans::Yes ? Shape{k, m + 3} : Shape{m, k + 3};
          const Shape b_shape = trans_b == Trans::Yes ? Shape{n, k} : Shape{k, n};
          // A column slice: rows 3 values wider than the matrix.
          Tensor a = randn(a_shape, generator, dtype).slice(1, 0, a_shape[1] - 3);
          Tensor b = randn(b_shape, generator, dtype);
          Tensor two = matmul(a, b, trans_a, trans_b);
          Tensor batched = matmul(a.unsqueeze(0), b.unsqueeze(0), trans_a, trans_b).squeeze(0);
          CHECK(two.to_vector() == batched.to_vector());
          Tensor viewed = matmul(trans_a == Trans::Yes ? a.t() : a, trans_b == Trans::Yes ? b.t() : b);
          CHECK(two.to_vector() == viewed.to_vector());
        }
      }
    }
  }
}

TEST_CASE("batch dims broadcast", "[matmul]") {
  Generator generator(3);
  Tensor a = randn({2, 1, 4, 5}, generator, DType::Float64);
  Tensor b = randn({3, 5, 6}, generator, DType::Float64);
  Tensor out = matmul(a, b);
  CHECK(out.shape() == Shape{2, 3, 4, 6});
  CHECK(allclose(out, matmul_reference(a, b), 1e-12, 1e-12));
  // Each batch entry is the plain 2-D product of its own matrices.
  Tensor one = matmul(a.select(0, 1).select(0, 0), b.select(0, 2));
  CHECK(allclose(out.select(0, 1).select(0, 2), one, 1e-12, 1e-12));
  // A 2-D operand broadcasts against a batch.
  Tensor weight = randn({5, 3}, generator, DType::Float64);
  Tensor batched = matmul(a, weight);
  CHECK(batched.shape() == Shape{2, 1, 4, 3});
  CHECK(allclose(batched, matmul_reference(a, weight), 1e-12, 1e-12));
}

TEST_CASE("a 2-D operand shared by a batch: folded into one product, same bits", "[matmul]") {
  // [batch, tokens, features] · Wᵀ, as a Linear does: the batch becomes rows of one product.
  Generator generator(5);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    Tensor x = randn({3, 2, 17, 33}, generator, dtype);
    Tensor weight = randn({9, 33}, generator, dtype);
    Tensor out = matmul(x, weight, Trans::No, Trans::Yes);
    CHECK(out.shape() == Shape{3, 2, 17, 9});
    const double tolerance = dtype == DType::Float32 ? 1e-4 : 1e-12;
    CHECK(allclose(out, matmul_reference(x, weight, Trans::No, Trans::Yes), tolerance, tolerance));
    // Every item's rows are exactly its own 2-D product.
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 2; ++j) {
        Tensor item = matmul(x.select(0, i).select(0, j), weight, Trans::No, Trans::Yes);
        CHECK(out.select(0, i).select(0, j).to_vector() == item.to_vector());
      }
    }
  }
}

TEST_CASE("attention-shaped products: Q Kᵀ and weights V over batch and heads", "[matmul]") {
  Generator generator(11);
  // [batch, heads, tokens, head_dim]
  Tensor query = randn({2, 3, 5, 4}, generator);
  Tensor key = randn({2, 3, 7, 4}, generator);
  Tensor value = randn({2, 3, 7, 4}, generator);
  Tensor scores = matmul(query, key, Trans::No, Trans::Yes);
  CHECK(scores.shape() == Shape{2, 3, 5, 7});
  CHECK(allclose(scores, matmul_reference(query, key, Trans::No, Trans::Yes), 1e-5, 1e-5));
  CHECK(allclose(scores, matmul(query, key.transpose(-2, -1)), 1e-6, 1e-6));
  Tensor out = matmul(softmax(scores, -1), value);
  CHECK(allclose(out, matmul_reference(softmax(scores, -1), value), 1e-5, 1e-5));
  // Heads split from a [batch, tokens, heads*head_dim] tensor by view + transpose (strided
  // batch dims that do not merge into one stride).
  Tensor projected = randn({2, 5, 12}, generator);
  Tensor heads = projected.view({2, 5, 3, 4}).transpose(1, 2);  // [2, 3, 5, 4], not contiguous
  Tensor self_scores = matmul(heads, heads, Trans::No, Trans::Yes);
  CHECK(allclose(self_scores, matmul_reference(heads, heads, Trans::No, Trans::Yes), 1e-5, 1e-5));
  CHECK(allclose(self_scores, matmul(heads.contiguous(), heads.contiguous().transpose(-2, -1)),
                 1e-6, 1e-6));
}

// Heads split by view and transpose: batch dims [batch, heads] that do not merge, all 4·8
// products handed to the threads together (enough work for two). One thread and two give the
// same bits.
TEST_CASE("split heads: the same bits with 1 and 2 threads", "[matmul][threads]") {
  Generator generator(17);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    Tensor projected = randn({4, 64, 8 * 32}, generator, dtype);
    Tensor heads = projected.view({4, 64, 8, 32}).transpose(1, 2);  // [4, 8, 64, 32]
    const int before = num_threads();
    set_num_threads(1);
    Tensor one = matmul(heads, heads, Trans::No, Trans::Yes);
    set_num_threads(2);
    Tensor two = matmul(heads, heads, Trans::No, Trans::Yes);
    set_num_threads(before);
    CHECK(one.to_vector() == two.to_vector());
    CHECK(allclose(one, matmul_reference(heads, heads, Trans::No, Trans::Yes), 1e-4, 1e-4));
  }
}

TEST_CASE("operands that need a copy: strided slices and expanded batches", "[matmul]") {
  Generator generator(5);
  Tensor big = randn({6, 8}, generator, DType::Float64);
  Tensor every_other_column = big.slice(1, 0, 8, 2);  // [6, 4], column stride 2
  Tensor b = randn({4, 3}, generator, DType::Float64);
  CHECK(allclose(matmul(every_other_column, b), matmul_reference(every_other_column, b), 1e-12,
                 1e-12));
  Tensor shared = randn({1, 4, 3}, generator, DType::Float64).expand({5, 4, 3});
  Tensor a = randn({5, 2, 4}, generator, DType::Float64);
  CHECK(allclose(matmul(a, shared), matmul_reference(a, shared), 1e-12, 1e-12));
}

TEST_CASE("empty dims give empty or zero results", "[matmul]") {
  CHECK(matmul(Tensor::zeros({0, 3}), Tensor::zeros({3, 4})).shape() == Shape{0, 4});
  Tensor zero_inner = matmul(Tensor::ones({2, 0}), Tensor::ones({0, 3}));
  CHECK(zero_inner.shape() == Shape{2, 3});
  CHECK(zero_inner.to_vector() == std::vector<double>(6, 0));
}

TEST_CASE("matmul errors", "[matmul]") {
  REQUIRE_THROWS_AS(matmul(Tensor::zeros({2, 3}), Tensor::zeros({4, 5})), std::invalid_argument);
  REQUIRE_THROWS_WITH(matmul(Tensor::zeros({2, 3}), Tensor::zeros({4, 5})),
                      Contains("matmul: [2, 3] @ [4, 5]: inner dimensions 3 and 4 differ"));
  REQUIRE_THROWS_WITH(matmul(Tensor::zeros({3}), Tensor::zeros({3, 4})),
                      Contains("matmul: [3] @ [3, 4]: both operands need at least 2 dims"));
  REQUIRE_THROWS_WITH(
      matmul(Tensor::zeros({2, 2, 3}), Tensor::zeros({3, 3, 4})),
      Contains("matmul: [2, 2, 3] @ [3, 3, 4]: batch dims [2] and [3] cannot be broadcast"));
  REQUIRE_THROWS_WITH(matmul(Tensor::zeros({2, 3}), Tensor::zeros({3, 4}, DType::Float64)),
                      Contains("matmul: dtype mismatch float32 vs float64"));
  REQUIRE_THROWS_WITH(
      matmul(Tensor::zeros({2, 3}, DType::Int64), Tensor::zeros({3, 4}, DType::Int64)),
      Contains("matmul: expected a float32 or float64 tensor, got int64"));
  REQUIRE_THROWS_WITH(
      matmul_reference(Tensor::zeros({2, 3}), Tensor::zeros({2, 3})),
      Contains("matmul_reference: [2, 3] @ [2, 3]: inner dimensions 3 and 2 differ"));
}

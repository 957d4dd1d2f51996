// tests/tensor/test_gemm_bfloat16.cpp — x·Wᵀ with W stored as bfloat16 (tensor/gemm_bfloat16.cpp,
// tensor/bfloat16_matrix.cpp): the same bits as gemm() of the widened W on one row and on many,
// at 1 and 2 threads, and one row times several W at once; within float32's rounding of the
// readable reference; the rounding of each weight and its place in the panels; the shapes; and
// the refusal on a CPU without AVX2 and FMA.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tensor/bfloat16_matrix.h"
#include "tensor/gemm.h"
#include "tensor/gemm_bfloat16.h"
#include "tensor/half.h"
#include "tensor/ops.h"
#include "tensor/threads.h"
#include "tensor/uniform_values.h"

using namespace atencion;

namespace {

// One product of shape (m, n, k), A stored k x m when trans_a, W [n, k] kept as bfloat16.
struct Product {
  GemmShape shape;
  std::vector<float> a, c;
  BFloat16Matrix w;
  std::vector<float> widened() const {
    const Tensor values = w.to_float32();
    return {values.data<float>(), values.data<float>() + values.numel()};
  }
};

Product product(int64_t m, int64_t n, int64_t k, bool trans_a, uint32_t seed) {
  const int64_t lda = trans_a ? m : k;
  return Product{{m, n, k, trans_a, /*trans_b=*/true, lda, k, n},
                 uniform_values((trans_a ? k : m) * lda, seed),
                 uniform_values(m * n, seed + 1),  // what accumulate adds to
                 BFloat16Matrix(Tensor::from_vector(uniform_values(n * k, seed + 2), {n, k}))};
}

std::vector<float> fast_at(const Product& p, bool accumulate, int threads) {
  const int before = num_threads();
  set_num_threads(threads);
  std::vector<float> c = p.c;
  gemm_bfloat16(p.shape, p.a.data(), p.w, c.data(), accumulate);
  set_num_threads(before);
  return c;
}

// (m, n, k): one row (decoding) and a few rows (a prompt), k over one 256-step block and under,
// n not a multiple of 16, 64 or 128 (a panel's last group of 16 short, or its last 8), and a
// 50,257-like odd n.
const std::vector<std::vector<int64_t>> kShapes = {
    {1, 1, 1},  {1, 17, 5},   {1, 200, 300}, {1, 1001, 771}, {1, 64, 8},   {1, 120, 260},
    {1, 185, 9},
    {3, 17, 5}, {2, 200, 300}, {7, 259, 771}, {5, 1, 16}};

}  // namespace

TEST_CASE("gemm_bfloat16: the bits of gemm on the widened W, at 1 and 2 threads",
          "[gemm_bfloat16]") {
  uint32_t seed = 1;
  for (const auto& mnk : kShapes)
    for (bool trans_a : {false, true})
      for (bool accumulate : {false, true}) {
        const Product p = product(mnk[0], mnk[1], mnk[2], trans_a, seed += 10);
        std::vector<float> expected = p.c;
        const std::vector<float> widened = p.widened();
        gemm(p.shape, p.a.data(), widened.data(), expected.data(), accumulate);
        INFO("m " << mnk[0] << " n " << mnk[1] << " k " << mnk[2] << " trans_a " << trans_a
                  << " accumulate " << accumulate);
        CHECK(fast_at(p, accumulate, 1) == expected);
        CHECK(fast_at(p, accumulate, 2) == expected);
      }
}

// The fast sum and the reference's differ only in float32's rounding of the same k terms:
// each at most k · 2^-24 · sum_p |a_p w_p| (a sum of k terms in any order, fused or not).
// One row times several bfloat16 weights at once (a layer's Q, K and V): each output the bits
// of its own gemm_bfloat16, a 64-row panel reaching past a weight's end or not.
TEST_CASE("gemm_bfloat16_row_many: each weight's outputs the bits of its own product, at 1 and 2 "
          "threads",
          "[gemm_bfloat16][threads]") {
  if (!cpu_features().avx2 || !cpu_features().fma) return;
  uint32_t seed = 60;
  for (const std::vector<int64_t>& rows :
       std::vector<std::vector<int64_t>>{{768, 768, 768}, {33, 70, 5}, {64, 0, 100}, {300}})
    for (const int64_t k : {1, 9, 300})
      for (int threads : {1, 2}) {
        INFO(rows.size() << " weights, the first of " << rows[0] << " rows, k " << k << ", "
                         << threads << " threads");
        const std::vector<float> a = uniform_values(k, seed++);
        std::vector<BFloat16Matrix> weights;
        std::vector<std::vector<float>> together, alone;
        for (const int64_t n : rows) {
          weights.emplace_back(Tensor::from_vector(uniform_values(n * k, seed++), {n, k}));
          together.push_back(uniform_values(n + 1, seed++));
          alone.push_back(together.back());
        }
        std::vector<const BFloat16Matrix*> w;
        std::vector<float*> c;
        for (size_t m = 0; m < rows.size(); ++m) {
          w.push_back(&weights[m]);
          c.push_back(together[m].data());
        }
        const int before = num_threads();
        set_num_threads(threads);
        gemm_bfloat16_row_many(a.data(), 1, w, c, /*accumulate=*/true);
        for (size_t m = 0; m < rows.size(); ++m)
          gemm_bfloat16({1, rows[m], k, false, true, k, k, rows[m]}, a.data(), weights[m],
                        alone[m].data(), /*accumulate=*/true);
        set_num_threads(before);
        for (size_t m = 0; m < rows.size(); ++m) REQUIRE(together[m] == alone[m]);
      }
  const BFloat16Matrix first(Tensor::from_vector(uniform_values(19 * 6, 7), {19, 6}));
  const Tensor x = Tensor::from_vector(uniform_values(6, 9), {1, 6});
  const BFloat16Matrix* one[] = {&first};
  CHECK(matmul_bfloat16_row_many(x, one)[0].to_vector() == matmul_bfloat16(x, first).to_vector());
  const BFloat16Matrix narrow(Tensor::zeros({4, 5}));
  const BFloat16Matrix* mixed[] = {&first, &narrow};
  CHECK_THROWS_WITH(gemm_bfloat16_row_many(x.data<float>(), 1, mixed,
                                           std::vector<float*>{nullptr, nullptr}, false),
                    "gemm_bfloat16_row_many: weights of 6 and 5 columns; one row times each "
                    "needs the same");
  CHECK_THROWS_WITH(gemm_bfloat16_row_many(x.data<float>(), 1, one,
                                           std::vector<float*>{nullptr, nullptr}, false),
                    "gemm_bfloat16_row_many: 1 weights and 2 outputs; expected as many, at least "
                    "one");
  CHECK_THROWS_WITH(matmul_bfloat16_row_many(Tensor::zeros({2, 6}), one),
                    "matmul_bfloat16_row_many: x [2, 6] float32 must be one float32 row of 6 (W "
                    "is [19, 6])");
}

TEST_CASE("gemm_bfloat16: within float32 rounding of the readable reference", "[gemm_bfloat16]") {
  uint32_t seed = 500;
  for (const auto& mnk : kShapes) {
    const Product p = product(mnk[0], mnk[1], mnk[2], false, seed += 10);
    std::vector<float> reference = p.c, fast = p.c;
    gemm_bfloat16_reference(p.shape, p.a.data(), p.w, reference.data(), false);
    gemm_bfloat16(p.shape, p.a.data(), p.w, fast.data(), false);
    const GemmShape& s = p.shape;
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        double magnitude = 0;
        for (int64_t q = 0; q < s.k; ++q)
          magnitude += std::fabs(p.a[i * s.lda + q] * bfloat16_to_float(p.w.at(j, q)));
        CHECK(std::fabs(fast[i * s.n + j] - reference[i * s.n + j]) <=
              static_cast<double>(s.k) * std::ldexp(magnitude, -24));
      }
  }
}

TEST_CASE("BFloat16Matrix: each weight rounded to nearest even, within 2^-8 of itself",
          "[gemm_bfloat16]") {
  std::vector<float> values = uniform_values(64 * 48, 7);
  for (size_t i = 0; i < values.size(); ++i)  // magnitudes from 2^-40 to 2^40
    values[i] = std::ldexp(values[i], static_cast<int>(i % 81) - 40);
  const BFloat16Matrix matrix(Tensor::from_vector(values, {64, 48}));
  CHECK(matrix.rows() == 64);
  CHECK(matrix.cols() == 48);
  const std::vector<double> widened = matrix.to_float32().to_vector();
  for (size_t i = 0; i < values.size(); ++i) {
    CHECK(matrix.at(static_cast<int64_t>(i) / 48, static_cast<int64_t>(i) % 48) ==
          float_to_bfloat16(values[i]));
    CHECK(std::fabs(widened[i] - values[i]) <= std::ldexp(std::fabs(values[i]), -8));
  }
}

// Panel r, step p: W[64 r + i, p] at slot(i), in each group of 16 rows rows 4-7 and 8-11
// changing places (the order in which AVX2 widens 16-bit values); the rows past the last are
// zeros; each panel 64-byte aligned.
TEST_CASE("BFloat16Matrix: panels of 64 rows, in the order the widening takes them",
          "[gemm_bfloat16]") {
  const int64_t n = 85, k = 3;
  const std::vector<float> values = uniform_values(n * k, 9);
  const BFloat16Matrix matrix(Tensor::from_vector(values, {n, k}));
  REQUIRE(matrix.panels() == 2);
  const std::vector<int64_t> order = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
  for (int64_t group = 0; group < 4; ++group)
    for (int64_t slot = 0; slot < 16; ++slot)
      CHECK(BFloat16Matrix::slot(16 * group + order[slot]) == 16 * group + slot);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t p = 0; p < k; ++p)
      CHECK(matrix.panel(j / 64)[p * 64 + BFloat16Matrix::slot(j % 64)] ==
            float_to_bfloat16(values[j * k + p]));
  for (int64_t p = 0; p < k; ++p)
    for (int64_t i = n % 64; i < 64; ++i)
      CHECK(matrix.panel(1)[p * 64 + BFloat16Matrix::slot(i)] == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(matrix.panel(0)) % 64 == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(matrix.panel(1)) % 64 == 0);
}

TEST_CASE("matmul_bfloat16: x [..., k] times Wᵀ, shapes checked", "[gemm_bfloat16]") {
  const BFloat16Matrix matrix(Tensor::from_vector(uniform_values(5 * 3, 3), {5, 3}));
  const Tensor x = Tensor::from_vector(std::vector<float>{0.5f, -1, 2, 0.25f, 1, -0.5f}, {1, 2, 3});
  const Tensor y = matmul_bfloat16(x, matrix);
  CHECK(y.shape() == Shape{1, 2, 5});
  const Tensor expected = matmul(x, matrix.to_float32(), Trans::No, Trans::Yes);
  CHECK(y.to_vector() == expected.to_vector());
  CHECK_THROWS_WITH(matmul_bfloat16(Tensor::zeros({2, 4}), matrix),
                    "matmul_bfloat16: x [2, 4] float32 must be float32 ending in 3 (W is [5, 3])");
  CHECK_THROWS_WITH(BFloat16Matrix(Tensor::zeros({2, 3, 4})),
                    "BFloat16Matrix: expected a 2-D float32 or float64 matrix, got [2, 3, 4] "
                    "float32");
}

TEST_CASE("gemm_bfloat16: a shape that is not W's refused in one line", "[gemm_bfloat16]") {
  const Product p = product(1, 5, 3, false, 40);
  std::vector<float> c(8);
  GemmShape wrong = p.shape;
  wrong.n = 6;
  CHECK_THROWS_WITH(gemm_bfloat16(wrong, p.a.data(), p.w, c.data(), false),
                    "gemm_bfloat16: (n, k) = (6, 3) with trans_b must be W's [5, 3]");
  wrong = p.shape;
  wrong.trans_b = false;
  CHECK_THROWS_WITH(gemm_bfloat16_reference(wrong, p.a.data(), p.w, c.data(), false),
                    "gemm_bfloat16_reference: (n, k) = (5, 3) with trans_b must be W's [5, 3]");
}

TEST_CASE("gemm_bfloat16: refused in one line on a CPU without AVX2 and FMA", "[gemm_bfloat16]") {
  CHECK_NOTHROW(check_bfloat16_support("sample --dtype bf16", CpuFeatures{true, true}));
  CHECK_THROWS_WITH(check_bfloat16_support("sample --dtype bf16", CpuFeatures{true, false}),
                    "sample --dtype bf16: bfloat16 weights need a CPU with AVX2 and FMA (this one "
                    "lacks FMA)");
  CHECK_THROWS_WITH(check_bfloat16_support("gemm_bfloat16", CpuFeatures{}),
                    "gemm_bfloat16: bfloat16 weights need a CPU with AVX2 and FMA (this one "
                    "lacks AVX2, FMA)");
}

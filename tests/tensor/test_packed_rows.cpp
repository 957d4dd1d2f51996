// tests/tensor/test_packed_rows.cpp — W copied into panels of 32 rows and the products that
// read them (tensor/packed_rows.cpp): the layout; the bits of gemm()'s one-row product on W and
// of the readable reference, at 1 and 2 threads; products of many rows with the bits of matmul on
// W; one row times several weights in one product, with each one's bits; the shapes; the refusal
// on a CPU without AVX2 and FMA.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "tensor/gemm.h"
#include "tensor/gemm_bfloat16.h"
#include "tensor/ops.h"
#include "tensor/packed_rows.h"
#include "tensor/threads.h"
#include "tensor/uniform_values.h"

using namespace atencion;

namespace {

bool cpu_packs() { return cpu_features().avx2 && cpu_features().fma; }

template <typename Fn>
void with_threads(int threads, Fn&& fn) {
  const int before = num_threads();
  set_num_threads(threads);
  fn();
  set_num_threads(before);
}

constexpr float kSentinel = 777.0f;  // past C's n outputs: never written

}  // namespace

TEST_CASE("PackedRows: panel r holds W[32 r + i, p] at step p, lane i, zeros past the last row",
          "[gemm][packed_rows]") {
  if (!cpu_packs()) return;  // refused there (the test below)
  constexpr int64_t P = PackedRows::kPanelRows;
  REQUIRE(P == 32);
  const int64_t n = 37, k = 5;
  const Tensor w = Tensor::from_vector(uniform_values(n * k, 3), {n, k});
  const PackedRows packed(w.t().contiguous().t());  // W read through its strides
  REQUIRE(packed.rows() == n);
  REQUIRE(packed.cols() == k);
  REQUIRE(packed.panels() == 2);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t p = 0; p < k; ++p) {
      CHECK(packed.at(j, p) == w.data<float>()[j * k + p]);
      CHECK(packed.panel(j / P)[p * P + j % P] == w.data<float>()[j * k + p]);
    }
  for (int64_t p = 0; p < k; ++p)
    for (int64_t i = n % P; i < P; ++i) CHECK(packed.panel(1)[p * P + i] == 0.0f);
  CHECK(reinterpret_cast<std::uintptr_t>(packed.panel(0)) % 64 == 0);
}

// One row of A (as stored, or transposed: a step of lda between its values), outputs n under
// 32 and at it, odd, across 2-panel runs and a 50,257-like count, k under 8, not a multiple of
// 8, one kc block (256) and several.
TEST_CASE("gemm_packed_row: the bits of gemm's one-row product on W, at 1 and 2 threads",
          "[gemm][packed_rows][threads]") {
  if (!cpu_packs()) return;
  uint32_t seed = 10;
  for (const auto& [n, k] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {7, 5}, {16, 8}, {17, 771}, {32, 9}, {33, 257}, {129, 513}, {300, 1000},
           {1001, 771}, {5, 256}})
    for (bool trans_a : {false, true})
      for (bool accumulate : {false, true})
        for (int threads : {1, 2}) {
          INFO("n " << n << ", k " << k << (trans_a ? ", A transposed" : "")
                    << (accumulate ? ", accumulate" : "") << ", " << threads << " threads");
          const int64_t lda = trans_a ? 3 : k, a_step = trans_a ? lda : 1;
          const std::vector<float> a = uniform_values(trans_a ? k * lda : k, seed++);
          const Tensor w = Tensor::from_vector(uniform_values(n * k, seed++), {n, k});
          std::vector<float> c = uniform_values(n, seed++);
          c.resize(static_cast<size_t>(n + 5), kSentinel);
          std::vector<float> expected = c, fast = c, reference = c;
          const PackedRows packed(w);
          const GemmShape row{1, n, k, trans_a, /*trans_b=*/true, lda, k, n};
          with_threads(threads, [&] {
            gemm(row, a.data(), w.data<float>(), expected.data(), accumulate);
            gemm_packed_row(a.data(), a_step, packed, fast.data(), accumulate);
          });
          gemm_packed_row_reference(a.data(), a_step, packed, reference.data(), accumulate);
          REQUIRE(std::memcmp(fast.data(), expected.data(), fast.size() * sizeof(float)) == 0);
          REQUIRE(std::memcmp(reference.data(), expected.data(), fast.size() * sizeof(float)) ==
                  0);
        }
}

// One row times several weights at once (a layer's Q, K and V): each output the bits of its own
// gemm_packed_row, whatever the weights' rows (multiples of a 64-output run or not, so that a
// run reaches from one weight into the next, one weight of no rows) and the thread count.
TEST_CASE("gemm_packed_row_many: each weight's outputs the bits of its own product, at 1 and 2 "
          "threads",
          "[gemm][packed_rows][threads]") {
  if (!cpu_packs()) return;
  uint32_t seed = 40;
  for (const std::vector<int64_t>& rows : std::vector<std::vector<int64_t>>{
           {768, 768, 768}, {33, 70, 5}, {64, 0, 100}, {1, 1}, {300}})
    for (const int64_t k : {1, 9, 300})
      for (bool accumulate : {false, true})
        for (int threads : {1, 2}) {
          INFO(rows.size() << " weights, the first of " << rows[0] << " rows, k " << k
                           << (accumulate ? ", accumulate" : "") << ", " << threads
                           << " threads");
          const std::vector<float> a = uniform_values(k, seed++);
          std::vector<PackedRows> weights;
          std::vector<std::vector<float>> together, alone;
          for (const int64_t n : rows) {
            weights.emplace_back(Tensor::from_vector(uniform_values(n * k, seed++), {n, k}));
            together.push_back(uniform_values(n, seed++));
            together.back().push_back(kSentinel);
            alone.push_back(together.back());
          }
          std::vector<const PackedRows*> w;
          std::vector<float*> c;
          for (size_t m = 0; m < rows.size(); ++m) {
            w.push_back(&weights[m]);
            c.push_back(together[m].data());
          }
          with_threads(threads, [&] {
            gemm_packed_row_many(a.data(), 1, w, c, accumulate);
            for (size_t m = 0; m < rows.size(); ++m)
              gemm_packed_row(a.data(), 1, weights[m], alone[m].data(), accumulate);
          });
          for (size_t m = 0; m < rows.size(); ++m)
            REQUIRE(std::memcmp(together[m].data(), alone[m].data(),
                                together[m].size() * sizeof(float)) == 0);
        }
}

TEST_CASE("matmul_packed_row_many: one row times each weight, refused in one line otherwise",
          "[packed_rows]") {
  if (!cpu_packs()) return;
  const PackedRows first(Tensor::from_vector(uniform_values(19 * 6, 7), {19, 6}));
  const PackedRows second(Tensor::from_vector(uniform_values(40 * 6, 8), {40, 6}));
  const Tensor x = Tensor::from_vector(uniform_values(6, 9), {1, 1, 6});
  const PackedRows* both[] = {&first, &second};
  const std::vector<Tensor> y = matmul_packed_row_many(x, both);
  REQUIRE(y.size() == 2);
  CHECK(y[0].shape() == Shape{1, 1, 19});
  CHECK(y[1].shape() == Shape{1, 1, 40});
  CHECK(y[0].to_vector() == matmul_packed_row(x, first).to_vector());
  CHECK(y[1].to_vector() == matmul_packed_row(x, second).to_vector());
  CHECK_THROWS_WITH(matmul_packed_row_many(Tensor::zeros({2, 6}), both),
                    "matmul_packed_row: x [2, 6] float32 must be one float32 row of 6 (W is "
                    "[19, 6])");
  const PackedRows narrow(Tensor::zeros({4, 5}));
  const PackedRows* mixed[] = {&first, &narrow};
  CHECK_THROWS_WITH(gemm_packed_row_many(x.data<float>(), 1, mixed,
                                         std::vector<float*>{nullptr, nullptr}, false),
                    "gemm_packed_row_many: weights of 6 and 5 columns; one row times each needs "
                    "the same");
  CHECK_THROWS_WITH(gemm_packed_row_many(x.data<float>(), 1, both, std::vector<float*>{nullptr},
                                         false),
                    "gemm_packed_row_many: 2 weights and 1 outputs; expected as many, at least "
                    "one");
}

TEST_CASE("matmul_packed_row: one row x [..., k] times Wᵀ, shapes checked", "[packed_rows]") {
  if (!cpu_packs()) return;
  const Tensor w = Tensor::from_vector(uniform_values(19 * 6, 7), {19, 6});
  const PackedRows packed(w);
  const Tensor x = Tensor::from_vector(uniform_values(6, 8), {1, 1, 6});
  const Tensor y = matmul_packed_row(x, packed);
  REQUIRE(y.shape() == Shape{1, 1, 19});
  const Tensor expected = matmul(x, w, Trans::No, Trans::Yes);
  CHECK(std::memcmp(y.data<float>(), expected.data<float>(), 19 * sizeof(float)) == 0);
  CHECK_THROWS_WITH(matmul_packed_row(Tensor::zeros({2, 6}), packed),
                    "matmul_packed_row: x [2, 6] float32 must be one float32 row of 6 (W is "
                    "[19, 6])");
  CHECK_THROWS_WITH(matmul_packed_row(Tensor::zeros({1, 5}), packed),
                    "matmul_packed_row: x [1, 5] float32 must be one float32 row of 6 (W is "
                    "[19, 6])");
  CHECK_THROWS_WITH(PackedRows(Tensor::zeros({2, 3, 4})),
                    "PackedRows: expected a 2-D float32 matrix, got [2, 3, 4] float32");
  CHECK_THROWS_WITH(PackedRows(Tensor::zeros({2, 3}, DType::Float64)),
                    "PackedRows: expected a 2-D float32 matrix, got [2, 3] float64");
}

// Products of many rows reading W's panels (of gemm()'s width: 16 rows with AVX2's kernel, 32
// with AVX-512's) instead of packing W: gemm()'s direct path (k <= 256 and op(B) of at most
// 256 x 256), its blocked path with one k block and with several, several column blocks (n over
// 1,024), n not a multiple of the panel; m of one row panel, a few, a decoding step's 64 and
// more; at 1 and 2 threads, the bits of matmul with W itself.
TEST_CASE("matmul_packed: many rows read W's panels with the bits of matmul on W, at 1 and 2 "
          "threads",
          "[gemm][packed_rows][threads]") {
  if (!cpu_packs()) return;
  uint32_t seed = 40;
  for (const auto& [n, k] : std::vector<std::pair<int64_t, int64_t>>{
           {100, 256}, {256, 256}, {1024, 256}, {256, 1024}, {2500, 256}, {33, 300}, {7, 5}})
    for (int64_t m : {2, 7, 64, 300}) {
      const Tensor w = Tensor::from_vector(uniform_values(n * k, seed++), {n, k});
      const Tensor x = Tensor::from_vector(uniform_values(m * k, seed++), {m, 1, k});
      const PackedRows packed(w, gemm_panel_rows());
      REQUIRE(matmul_packed_reads(packed, m));
      for (int threads : {1, 2}) {
        INFO("m " << m << ", n " << n << ", k " << k << ", " << threads << " threads");
        Tensor expected, y;
        with_threads(threads, [&] {
          expected = matmul(x, w, Trans::No, Trans::Yes);
          y = matmul_packed(x, packed);
        });
        REQUIRE(y.shape() == Shape{m, 1, n});
        REQUIRE(std::memcmp(y.data<float>(), expected.data<float>(),
                            static_cast<size_t>(m * n) * sizeof(float)) == 0);
      }
    }
}

TEST_CASE("matmul_packed: one row as matmul_packed_row, shapes checked", "[packed_rows]") {
  if (!cpu_packs()) return;
  const Tensor w = Tensor::from_vector(uniform_values(19 * 6, 7), {19, 6});
  const PackedRows packed(w);
  const Tensor x = Tensor::from_vector(uniform_values(6, 8), {1, 6});
  const Tensor y = matmul_packed(x, packed), expected = matmul_packed_row(x, packed);
  REQUIRE(y.shape() == Shape{1, 19});
  CHECK(std::memcmp(y.data<float>(), expected.data<float>(), 19 * sizeof(float)) == 0);
  CHECK_THROWS_WITH(matmul_packed(Tensor::zeros({3, 5}), packed),
                    "matmul_packed: x [3, 5] float32 must be float32 rows of 6 (W is [19, 6])");
  CHECK_THROWS_WITH(matmul_packed(Tensor::zeros({3, 6}, DType::Float64), packed),
                    "matmul_packed: x [3, 6] float64 must be float32 rows of 6 (W is [19, 6])");
}

TEST_CASE("PackedRows: panels of P rows hold W, each product reads the width it is made for",
          "[packed_rows]") {
  if (!cpu_packs()) return;
  const Tensor w = Tensor::from_vector(uniform_values(37 * 5, 11), {37, 5});
  for (int64_t rows : {1, 8, 16, 32, 64}) {
    const PackedRows packed(w, rows);
    INFO(rows << " rows a panel");
    CHECK(packed.panel_rows() == rows);
    CHECK(packed.panels() == (37 + rows - 1) / rows);
    float wrong = 0;
    for (int64_t j = 0; j < 37; ++j)
      for (int64_t p = 0; p < 5; ++p) wrong += packed.at(j, p) != w.data<float>()[j * 5 + p];
    CHECK(wrong == 0);
    if (37 % rows != 0)  // the last panel's rows past W's last are zeros
      CHECK(packed.panel(packed.panels() - 1)[4 * rows + rows - 1] == 0.0f);
    CHECK(matmul_packed_reads(packed, 1) == (rows == PackedRows::kPanelRows));
    CHECK(matmul_packed_reads(packed, 3) == (rows == gemm_panel_rows()));
  }
  const PackedRows odd(w, 24);  // a width neither product reads
  CHECK_THROWS_WITH(matmul_packed_row(Tensor::zeros({1, 5}), odd),
                    "gemm_packed_row: W's panels are of " + std::to_string(odd.panel_rows()) +
                        " rows; the one-row product reads panels of 32");
  CHECK_THROWS_WITH(matmul_packed(Tensor::zeros({3, 5}), odd),
                    Catch::Matchers::StartsWith("matmul_packed: W's panels are of " +
                                                std::to_string(odd.panel_rows()) +
                                                " rows; gemm's kernel ("));
  CHECK_THROWS_WITH(PackedRows(w, 0), "PackedRows: panels of 0 rows; expected 1 to 64");
  CHECK_THROWS_WITH(PackedRows(w, 65), "PackedRows: panels of 65 rows; expected 1 to 64");
}

TEST_CASE("PackedRows: refused in one line on a CPU without AVX2 and FMA", "[packed_rows]") {
  CHECK_THROWS_WITH(check_packed_rows_support("PackedRows", CpuFeatures{}),
                    "PackedRows: packed weights need a CPU with AVX2 and FMA (this one lacks "
                    "AVX2, FMA)");
  CHECK_THROWS_WITH(check_packed_rows_support("PackedRows", CpuFeatures{true, false}),
                    "PackedRows: packed weights need a CPU with AVX2 and FMA (this one lacks "
                    "FMA)");
  CHECK_NOTHROW(check_packed_rows_support("PackedRows", CpuFeatures{true, true}));
}

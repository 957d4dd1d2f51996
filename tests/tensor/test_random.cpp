// tests/tensor/test_random.cpp — the seeded generator (tensor/random.cpp).
//
// The constants below come from tests/tensor/random_reference.py, an independent Python
// replica of the recipe in tensor/random.h (SplitMix64 + 53-bit uniforms + Box-Muller). The
// first SplitMix64 word for seed 0, 0xe220a8397b1dcdaf, is also the published reference value.
#include <catch2/catch.hpp>
#include <cmath>

#include "tensor/ops.h"
#include "tensor/random.h"
#include "tensor/threads.h"

using namespace atencion;
using Catch::Contains;

TEST_CASE("SplitMix64 words for seed 0", "[random]") {
  Generator generator(0);
  CHECK(generator.next_u64() == 0xe220a8397b1dcdafULL);
  CHECK(generator.next_u64() == 0x6e789e6aa1b965f4ULL);
  CHECK(generator.next_u64() == 0x06c45d188009454fULL);
}

TEST_CASE("uniform draws for seed 0", "[random]") {
  Generator generator(0);
  CHECK(generator.uniform() == 0.8833108082136426);
  CHECK(generator.uniform() == 0.43152799704850997);
  CHECK(generator.uniform() == 0.026433771592597743);
}

TEST_CASE("randn with seed 0 gives the reference numbers", "[random]") {
  Generator generator(0);
  Tensor x = randn({2, 3}, generator, DType::Float64);
  const std::vector<double> expected{-1.8839083333524405,  0.8645068595575148,
                                     0.22760793546360525,  -0.04211268468683916,
                                     -0.22143788059715477, 0.4193328265559854};
  const std::vector<double> drawn = x.to_vector();
  for (std::size_t i = 0; i < expected.size(); ++i)
    CHECK(drawn[i] == Approx(expected[i]).epsilon(1e-15));
  Generator again(0);
  Tensor y = randn({6}, again);  // float32 rounds the same doubles
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(y.at({static_cast<int64_t>(i)}) == static_cast<double>(static_cast<float>(expected[i])));
  }
  Generator other(42);
  CHECK(other.normal() == Approx(0.8822489062222688).epsilon(1e-15));
  CHECK(other.normal() == Approx(1.388473285287707).epsilon(1e-15));
}

TEST_CASE("the state can be saved and restored", "[random]") {
  Generator generator(123);
  generator.normal();
  generator.normal();  // an even number of normals: no spare pending
  Generator resumed(0);
  resumed.set_state(generator.state());
  CHECK(resumed.normal() == generator.normal());
  CHECK(resumed.uniform() == generator.uniform());
  CHECK(generator.seed() == 123);
}

TEST_CASE("randint, rand and uniform", "[random]") {
  Generator generator(0);
  std::vector<int64_t> drawn;
  for (int i = 0; i < 5; ++i) drawn.push_back(generator.randint(3, 10));
  CHECK(drawn == std::vector<int64_t>{5, 4, 5, 7, 5});
  REQUIRE_THROWS_WITH(generator.randint(4, 4), Contains("randint: empty range [4, 4)"));

  Generator first(9), second(9);
  Tensor u = rand({1000}, first, DType::Float64);
  CHECK(u.to_vector() == rand({1000}, second, DType::Float64).to_vector());
  CHECK(max(u).item() < 1);
  CHECK(max(neg(u)).item() <= 0);
  CHECK(mean(u).item() == Approx(0.5).margin(0.05));
  Tensor w = uniform({1000}, -2, 3, first, DType::Float64);
  CHECK(max(w).item() < 3);
  CHECK(-max(neg(w)).item() >= -2);
  REQUIRE_THROWS_WITH(uniform({2}, 1, 0, first), Contains("uniform: low"));
  REQUIRE_THROWS_WITH(randn({2}, first, DType::Int64),
                      Contains("randn: expected a float32 or float64 tensor, got int64"));
}

TEST_CASE("a generator skipping tensor draws gives zeros and keeps its state", "[random]") {
  Generator skipping = Generator::skipping_tensor_draws(7);
  CHECK(skipping.skips_tensor_draws());
  CHECK_FALSE(Generator(7).skips_tensor_draws());
  for (const Tensor& filled : {randn({3, 5}, skipping, DType::Float64), rand({4}, skipping),
                               uniform({2, 2}, -1, 1, skipping)})
    CHECK(max(abs(filled)).item() == 0);
  CHECK(skipping.state() == 7);  // nothing drawn
  CHECK_THROWS_WITH(randn({2}, skipping, DType::Int64), Contains("randn"));
  Generator usual(7);  // scalar draws as usual
  CHECK(skipping.next_u64() == usual.next_u64());
}

TEST_CASE("randn has mean 0 and variance 1", "[random]") {
  Generator generator(2024);
  Tensor x = randn({100000}, generator, DType::Float64);
  CHECK(mean(x).item() == Approx(0).margin(0.02));  // standard error 0.003
  CHECK(var(x).item() == Approx(1).margin(0.02));
}

// rand and dropout_scale fill large tensors in parallel from peek_u64; the values must be the
// draws a one-by-one loop makes, whatever the number of threads.
TEST_CASE("rand fills in parallel with the sequential draws", "[random]") {
  const int previous_threads = num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    Generator filled(31), one_by_one(31);
    const Tensor u = rand({70000}, filled, DType::Float64);  // above the parallel threshold
    bool same = true;
    for (int64_t i = 0; i < u.numel(); ++i) same = same && u.data<double>()[i] == one_by_one.uniform();
    CHECK(same);
    CHECK(filled.next_u64() == one_by_one.next_u64());  // the generator moved past the draws
  }
  set_num_threads(previous_threads);
  Generator generator(0);
  CHECK(generator.peek_u64(2) == 0x06c45d188009454fULL);  // the third word, not drawn
  CHECK(generator.next_u64() == 0xe220a8397b1dcdafULL);
}

TEST_CASE("dropout_scale: two 32-bit uniforms per word, kept when u >= p", "[random]") {
  // The rule of tensor/random.h replayed from next_u64: element 2j takes the low half of word j,
  // element 2j+1 the high half; kept (1/(1-p)) when bits / 2^32 >= p.
  for (DType dtype : {DType::Float32, DType::Float64}) {
    Generator fused(5), words(5);
    const Tensor scale = dropout_scale({301, 200}, 0.1, fused, dtype).to(DType::Float64);
    bool same = true;
    for (int64_t i = 0; i < scale.numel(); i += 2) {
      const uint64_t word = words.next_u64();
      for (int64_t half = 0; half < 2 && i + half < scale.numel(); ++half) {
        const double u = static_cast<double>((word >> (32 * half)) & 0xFFFFFFFFu) / 4294967296.0;
        const double expected = u >= 0.1 ? static_cast<double>(dtype == DType::Float32
                                                                   ? double(float(1.0 / 0.9))
                                                                   : 1.0 / 0.9)
                                         : 0.0;
        same = same && scale.data<double>()[i + half] == expected;
      }
    }
    CHECK(same);
    CHECK(fused.next_u64() == words.next_u64());  // moved past ceil(n / 2) words
    const double kept = mean(ne(scale, Tensor::scalar(0.0, DType::Float64))
                                 .to(DType::Float64)).item();
    CHECK(kept == Approx(0.9).margin(0.005));
  }
  Generator generator(1);
  CHECK(sum(dropout_scale({100}, 1.0, generator)).item() == 0.0);
  CHECK(sum(dropout_scale({100}, 0.0, generator)).item() == 100.0);
  REQUIRE_THROWS_WITH(dropout_scale({2}, 1.5, generator),
                      Contains("dropout_scale: probability 1.5 is outside [0, 1]"));
}

TEST_CASE("dropout_multiply equals x * dropout_scale for any threads, odd sizes, views",
          "[random]") {
  const int previous_threads = num_threads();
  Generator values(3);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const Tensor x = randn({257, 301}, values, dtype);  // odd count, above the parallel threshold
    for (const Tensor& input : {x, x.t()}) {
      Generator spelled_out(77);
      const Tensor expected = mul(input, dropout_scale(input.shape(), 0.3, spelled_out, dtype));
      for (int threads : {1, 2}) {
        set_num_threads(threads);
        const Generator draws(77);
        CHECK(allclose(dropout_multiply(input, 0.3, draws), expected, 0.0, 0.0));
      }
    }
  }
  set_num_threads(previous_threads);
  REQUIRE_THROWS_WITH(dropout_multiply(Tensor(), 0.1, Generator(1)),
                      Contains("dropout_multiply: the tensor is undefined"));
  REQUIRE_THROWS_WITH(dropout_multiply(Tensor::ones({2}), 2.0, Generator(1)),
                      Contains("dropout_multiply: probability 2 is outside [0, 1]"));
}

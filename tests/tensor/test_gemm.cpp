// tests/tensor/test_gemm.cpp — the fast gemm (tensor/gemm.cpp) against the plain triple loop
// gemm_reference, on odd shapes, every transpose combination, padded leading dimensions,
// accumulation, batches with broadcasting, both element types, every micro-kernel this CPU
// runs, and the same bits with 1 and 2 threads.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tensor/gemm.h"
#include "tensor/gemm_kernel.h"
#include "tensor/threads.h"

using atencion::GemmShape;
namespace detail = atencion::gemm_detail;

namespace {

// A stored operand: `rows` x `cols` values at row stride `ld` >= cols; the padding between rows
// holds a sentinel that the product must neither read into C nor overwrite.
template <typename T>
struct Stored {
  int64_t rows, cols, ld;
  std::vector<T> values;
};

constexpr double sentinel = 1234.5;

template <typename T>
Stored<T> random_stored(int64_t rows, int64_t cols, int64_t padding, uint32_t seed) {
  Stored<T> m{rows, cols, cols + padding, {}};
  m.values.assign(static_cast<std::size_t>(std::max<int64_t>(1, rows * m.ld)), T(sentinel));
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) m.values[r * m.ld + c] = T(uniform(generator));
  return m;
}

template <typename T>
Stored<T> absolute(Stored<T> m) {
  for (T& v : m.values) v = std::fabs(v);
  return m;
}

struct Case {
  int64_t m, n, k;
  bool trans_a = false, trans_b = false;
  int64_t padding = 0;  // added to every leading dimension
};

// A, B and C for one case; A is stored k x m when transposed, B n x k.
template <typename T>
struct Operands {
  GemmShape shape;
  Stored<T> a, b, c;
};

template <typename T>
Operands<T> make_operands(const Case& t, uint32_t seed) {
  Stored<T> a = t.trans_a ? random_stored<T>(t.k, t.m, t.padding, seed)
                          : random_stored<T>(t.m, t.k, t.padding, seed);
  Stored<T> b = t.trans_b ? random_stored<T>(t.n, t.k, t.padding, seed + 1)
                          : random_stored<T>(t.k, t.n, t.padding, seed + 1);
  Stored<T> c = random_stored<T>(t.m, t.n, t.padding, seed + 2);
  GemmShape shape{t.m, t.n, t.k, t.trans_a, t.trans_b, a.ld, b.ld, c.ld};
  return {shape, std::move(a), std::move(b), std::move(c)};
}

std::string describe(const Case& t) {
  return std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k) +
         (t.trans_a ? " Aᵀ" : " A") + (t.trans_b ? " Bᵀ" : " B") + " pad " +
         std::to_string(t.padding);
}

// |fast - reference| must stay within the rounding bound of two k-term dot products,
// 2·k·eps·sum_p |a_ip|·|b_pj| (plus |C| when accumulating), computed with the reference itself.
template <typename T>
void require_close(const Operands<T>& x, const std::vector<T>& fast,
                   const std::vector<T>& reference, bool accumulate) {
  Stored<T> bound = x.c;
  const Stored<T> abs_a = absolute(x.a), abs_b = absolute(x.b);
  atencion::gemm_reference(x.shape, abs_a.values.data(), abs_b.values.data(),
                           bound.values.data(), false);
  const double eps = std::numeric_limits<T>::epsilon();
  const int64_t m = x.shape.m, n = x.shape.n, ld = x.c.ld;
  int64_t mismatches = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ld; ++j) {
      const std::size_t at = static_cast<std::size_t>(i * ld + j);
      if (j >= n) {
        mismatches += fast[at] != T(sentinel);  // padding left alone
        continue;
      }
      const double allowed = 2.0 * (x.shape.k + 2) * eps *
                                 (bound.values[at] + (accumulate ? std::fabs(x.c.values[at]) : 0)) +
                             std::numeric_limits<T>::min();
      mismatches += !(std::fabs(double(fast[at]) - double(reference[at])) <= allowed);
    }
  REQUIRE(mismatches == 0);
}

template <typename T>
void check_against_reference(const Case& t, bool accumulate, uint32_t seed,
                             const detail::MicroKernel<T>* kernel = nullptr, int threads = 1) {
  INFO(describe(t) << (accumulate ? " accumulate" : "") << " " << sizeof(T) * 8 << "-bit"
                   << (kernel ? std::string(" kernel ") + kernel->name : ""));
  const Operands<T> x = make_operands<T>(t, seed);
  std::vector<T> fast = x.c.values, reference = x.c.values;
  if (kernel)
    detail::gemm_with(*kernel, x.shape, x.a.values.data(), x.b.values.data(), fast.data(),
                      accumulate, threads);
  else
    atencion::gemm(x.shape, x.a.values.data(), x.b.values.data(), fast.data(), accumulate);
  atencion::gemm_reference(x.shape, x.a.values.data(), x.b.values.data(), reference.data(),
                           accumulate);
  require_close(x, fast, reference, accumulate);
}

// Shapes around the tile sizes (14 x 32, 6 x 16, 4 x 8), several k blocks (256 floats,
// 128 doubles), more rows than one row block, and the degenerate 1 x 1 x 1.
const std::vector<Case> odd_shapes = {
    {1, 1, 1, false, false, 0},   {7, 13, 5, false, false, 0},  {14, 32, 9, false, false, 0},
    {15, 33, 17, false, false, 0}, {29, 65, 300, false, false, 0}, {257, 129, 65, false, false, 0},
    {3, 200, 2, false, false, 0},  {200, 3, 40, false, false, 0},
};

template <typename T>
void for_each_transpose(const Case& base, uint32_t seed, bool accumulate, int64_t padding,
                        const detail::MicroKernel<T>* kernel = nullptr, int threads = 1) {
  for (bool trans_a : {false, true})
    for (bool trans_b : {false, true}) {
      Case t = base;
      t.trans_a = trans_a;
      t.trans_b = trans_b;
      t.padding = padding;
      check_against_reference<T>(t, accumulate, seed, kernel, threads);
    }
}

template <typename T>
std::vector<detail::MicroKernel<T>> kernels_this_cpu_runs() {
  std::vector<detail::MicroKernel<T>> kernels(1);
  detail::generic_kernel(kernels[0]);
  detail::MicroKernel<T> kernel{};
  if (detail::avx2_kernel(kernel)) kernels.push_back(kernel);
  if (detail::avx512_kernel(kernel)) kernels.push_back(kernel);
  return kernels;
}

// How many elements differ by more than the rounding bound of two k-term sums of products of
// values in [-1, 1]: 2·k·eps·k.
template <typename T>
int64_t count_far_apart(const std::vector<T>& fast, const std::vector<T>& reference, int64_t k) {
  const double tolerance = 2.0 * k * std::numeric_limits<T>::epsilon() * k;
  int64_t far_apart = 0;
  for (std::size_t at = 0; at < reference.size(); ++at)
    far_apart += !(std::fabs(double(fast[at]) - double(reference[at])) <= tolerance);
  return far_apart;
}

// Runs `body` with set_num_threads(threads), restoring the previous setting.
template <typename Body>
void with_threads(int threads, Body body) {
  const int before = atencion::num_threads();
  atencion::set_num_threads(threads);
  body();
  atencion::set_num_threads(before);
}

}  // namespace

TEMPLATE_TEST_CASE("gemm matches gemm_reference on odd shapes and all transposes", "[gemm]",
                   float, double) {
  uint32_t seed = 1;
  for (const Case& shape : odd_shapes) for_each_transpose<TestType>(shape, seed++, false, 0);
}

TEMPLATE_TEST_CASE("gemm reads and writes through leading dimensions wider than the rows",
                   "[gemm]", float, double) {
  uint32_t seed = 100;
  for (const Case& shape : {Case{7, 13, 5}, Case{31, 47, 70}})
    for_each_transpose<TestType>(shape, seed++, false, 5);
}

TEMPLATE_TEST_CASE("gemm with accumulate adds the product to C", "[gemm]", float, double) {
  uint32_t seed = 200;
  for (const Case& shape : {Case{7, 13, 5}, Case{29, 65, 300}})
    for_each_transpose<TestType>(shape, seed++, true, 3);

  // C = [[1, 2]] + [[1, 2]] @ [[1, 0], [0, 1]] = [[2, 4]], by hand.
  const TestType a[] = {1, 2}, b[] = {1, 0, 0, 1};
  TestType c[] = {1, 2};
  atencion::gemm(GemmShape{1, 2, 2, false, false, 2, 2, 2}, a, b, c, true);
  REQUIRE(c[0] == 2);
  REQUIRE(c[1] == 4);
}

TEMPLATE_TEST_CASE("gemm computes a small product known by hand", "[gemm]", float, double) {
  // [[1, 2, 3], [4, 5, 6]] @ [[7, 8], [9, 10], [11, 12]] = [[58, 64], [139, 154]]
  const TestType a[] = {1, 2, 3, 4, 5, 6}, b[] = {7, 8, 9, 10, 11, 12};
  TestType c[4] = {};
  atencion::gemm(GemmShape{2, 2, 3, false, false, 3, 2, 2}, a, b, c, false);
  REQUIRE(c[0] == 58);
  REQUIRE(c[1] == 64);
  REQUIRE(c[2] == 139);
  REQUIRE(c[3] == 154);
  // The same product from the stored transposes: Aᵀ is 3 x 2, Bᵀ is 2 x 3.
  const TestType a_t[] = {1, 4, 2, 5, 3, 6}, b_t[] = {7, 9, 11, 8, 10, 12};
  TestType c_t[4] = {};
  atencion::gemm(GemmShape{2, 2, 3, true, true, 2, 3, 2}, a_t, b_t, c_t, false);
  REQUIRE(c_t[0] == 58);
  REQUIRE(c_t[3] == 154);
}

TEMPLATE_TEST_CASE("gemm with k = 0 writes zeros, or leaves C alone when accumulating", "[gemm]",
                   float, double) {
  TestType c[] = {5, 6};
  const TestType unused = 0;
  atencion::gemm(GemmShape{1, 2, 0, false, false, 1, 2, 2}, &unused, &unused, c, true);
  REQUIRE(c[0] == 5);
  atencion::gemm(GemmShape{1, 2, 0, false, false, 1, 2, 2}, &unused, &unused, c, false);
  REQUIRE(c[0] == 0);
  REQUIRE(c[1] == 0);
}

TEMPLATE_TEST_CASE("every micro-kernel this CPU runs matches gemm_reference", "[gemm]", float,
                   double) {
  for (const auto& kernel : kernels_this_cpu_runs<TestType>()) {
    uint32_t seed = 300;
    for (const Case& shape : {Case{7, 13, 5}, Case{15, 33, 17}, Case{61, 70, 260}})
      for_each_transpose<TestType>(shape, seed++, true, 2, &kernel, 2);
  }
}

TEMPLATE_TEST_CASE("gemm gives the same bits with 1 and 2 threads", "[gemm][threads]", float,
                   double) {
  for (bool trans_a : {false, true})
    for (bool trans_b : {false, true}) {
      const Case t{203, 150, 300, trans_a, trans_b, 1};
      INFO(describe(t));
      const Operands<TestType> x = make_operands<TestType>(t, 400);
      std::vector<TestType> one = x.c.values, two = x.c.values;
      with_threads(1, [&] {
        atencion::gemm(x.shape, x.a.values.data(), x.b.values.data(), one.data(), true);
      });
      with_threads(2, [&] {
        atencion::gemm(x.shape, x.a.values.data(), x.b.values.data(), two.data(), true);
      });
      REQUIRE(std::memcmp(one.data(), two.data(), one.size() * sizeof(TestType)) == 0);
      require_close(x, one, [&] {
        std::vector<TestType> reference = x.c.values;
        atencion::gemm_reference(x.shape, x.a.values.data(), x.b.values.data(),
                                 reference.data(), true);
        return reference;
      }(), true);
    }
}

// A product of one row (decoding a token) reads B where it is stored, split by columns
// (tensor/gemm_row_avx2.cpp): row 0 of a 3-row product, which packs or runs the direct tiles,
// must come out with the same bits, at 1 and 2 threads, with sums of one and of several kc
// blocks, and nothing else of C (rows 1 and 2, the padding) touched.
TEST_CASE("a one-row product gives the same bits as that row of a larger product",
          "[gemm][threads]") {
  for (const auto& [n, k] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {7, 5}, {50, 300}, {129, 513}, {300, 1000}, {1100, 64}})
    for (bool trans_a : {false, true})
      for (bool trans_b : {false, true})
        for (bool accumulate : {false, true})
          for (int threads : {1, 2}) {
            const Case t{3, n, k, trans_a, trans_b, 3};
            INFO(describe(t) << (accumulate ? " accumulate" : "") << ", " << threads
                             << " threads");
            const Operands<float> x = make_operands<float>(t, 500);
            std::vector<float> three = x.c.values, one = x.c.values;
            GemmShape row = x.shape;
            row.m = 1;
            with_threads(threads, [&] {
              atencion::gemm(x.shape, x.a.values.data(), x.b.values.data(), three.data(),
                             accumulate);
              atencion::gemm(row, x.a.values.data(), x.b.values.data(), one.data(), accumulate);
            });
            REQUIRE(std::memcmp(one.data(), three.data(), n * sizeof(float)) == 0);
            REQUIRE(std::memcmp(one.data() + n, x.c.values.data() + n,
                                (one.size() - n) * sizeof(float)) == 0);
          }
}

// Teams of 2, 3 and 5 threads share each packed block of B and split C into chunks of rows,
// or of columns when the rows are few: on a 5-row C over more than one column block
// (nc = 1,024), on a C taller than one chunk may be (mc = 672 rows of floats), and on the
// square-ish case above, every team gives the bits of one thread.
TEMPLATE_TEST_CASE("gemm_with gives the same bits for teams of 1, 2, 3 and 5 threads",
                   "[gemm][threads]", float, double) {
  const detail::MicroKernel<TestType> kernel = kernels_this_cpu_runs<TestType>().back();
  uint32_t seed = 500;
  for (const Case& base : {Case{5, 1100, 300}, Case{700, 40, 30}, Case{203, 150, 300}})
    for (bool trans_a : {false, true}) {
      Case t = base;
      t.trans_a = trans_a;
      t.trans_b = !trans_a;
      INFO(describe(t) << " kernel " << kernel.name);
      const Operands<TestType> x = make_operands<TestType>(t, seed++);
      std::vector<TestType> one = x.c.values;
      detail::gemm_with(kernel, x.shape, x.a.values.data(), x.b.values.data(), one.data(), true,
                        1);
      for (int team : {2, 3, 5}) {
        INFO(team << " threads");
        std::vector<TestType> many = x.c.values;
        detail::gemm_with(kernel, x.shape, x.a.values.data(), x.b.values.data(), many.data(),
                          true, team);
        REQUIRE(std::memcmp(one.data(), many.data(), one.size() * sizeof(TestType)) == 0);
      }
      std::vector<TestType> reference = x.c.values;
      atencion::gemm_reference(x.shape, x.a.values.data(), x.b.values.data(), reference.data(),
                               true);
      require_close(x, one, reference, true);
    }
}

TEMPLATE_TEST_CASE("gemm_batched matches a loop of gemm_reference, with broadcasting",
                   "[gemm][batched]", float, double) {
  const int64_t batch = 6, m = 45, n = 50, k = 90;  // enough work to split over 2 threads
  for (int broadcast = 0; broadcast < 3; ++broadcast) {  // none, A shared, B shared
    INFO("broadcast " << broadcast);
    const Stored<TestType> a = random_stored<TestType>(batch * m, k, 0, 500);
    const Stored<TestType> b = random_stored<TestType>(batch * k, n, 0, 501);
    const int64_t stride_a = broadcast == 1 ? 0 : m * k, stride_b = broadcast == 2 ? 0 : k * n;
    const GemmShape shape{m, n, k, false, false, k, n, n};
    std::vector<TestType> reference(batch * m * n), one(batch * m * n, 7), two(batch * m * n, 7);
    for (int64_t i = 0; i < batch; ++i)
      atencion::gemm_reference(shape, a.values.data() + i * stride_a,
                               b.values.data() + i * stride_b, reference.data() + i * m * n,
                               false);
    with_threads(1, [&] {
      atencion::gemm_batched(shape, batch, a.values.data(), stride_a, b.values.data(), stride_b,
                             one.data(), m * n, false);
    });
    with_threads(2, [&] {
      atencion::gemm_batched(shape, batch, a.values.data(), stride_a, b.values.data(), stride_b,
                             two.data(), m * n, false);
    });
    REQUIRE(std::memcmp(one.data(), two.data(), one.size() * sizeof(TestType)) == 0);
    REQUIRE(count_far_apart(one, reference, k) == 0);
  }
}

TEMPLATE_TEST_CASE("gemm_batched of many small transposed products uses every batch item",
                   "[gemm][batched]", float, double) {
  // 64 products of 16 x 16 with Bᵀ (the attention scores' shape): each item differs.
  const int64_t batch = 64, size = 16;
  const Stored<TestType> a = random_stored<TestType>(batch * size, size, 0, 600);
  const Stored<TestType> b = random_stored<TestType>(batch * size, size, 0, 601);
  const GemmShape shape{size, size, size, false, true, size, size, size};
  std::vector<TestType> fast(batch * size * size), reference(batch * size * size);
  atencion::gemm_batched(shape, batch, a.values.data(), size * size, b.values.data(),
                         size * size, fast.data(), size * size, false);
  for (int64_t i = 0; i < batch; ++i)
    atencion::gemm_reference(shape, a.values.data() + i * size * size,
                             b.values.data() + i * size * size,
                             reference.data() + i * size * size, false);
  REQUIRE(count_far_apart(fast, reference, size) == 0);
}

// The small products' path (gemm.cpp's direct tiles, taken when the k sum is one block and
// op(B) is small) must give the bits of the blocked, packed path, which a copy of the kernel
// without direct tiles (width 0) takes: on every edge of the row tile (1 to 2·mr + 1 rows, with
// the even split of the rows), of the vectors (1 to nr + 1 columns, narrower than one vector,
// between one and two), with B packed (transposed, or 128·128 values and more) or read where it
// is, through wider leading dimensions, accumulating or not; and on the reference's bound.
TEMPLATE_TEST_CASE("gemm's direct path for small products gives the blocked path's bits",
                   "[gemm][direct]", float, double) {
  const std::vector<Case> small_shapes = {
      {1, 1, 1},    {2, 3, 5},     {5, 7, 20},    {6, 8, 16},    {7, 9, 3},      {13, 15, 64},
      {14, 16, 32}, {15, 17, 31},  {20, 20, 32},  {20, 32, 20},  {29, 33, 100},  {32, 31, 64},
      {33, 65, 17}, {64, 64, 64},  {20, 16, 20},  {40, 130, 128}, {3, 256, 128}, {100, 4, 128}};
  for (const auto& kernel : kernels_this_cpu_runs<TestType>()) {
    if (kernel.width == 0) continue;
    detail::MicroKernel<TestType> blocked = kernel;
    blocked.width = 0;  // no direct tiles: every product packs and blocks
    uint32_t seed = 700;
    for (const Case& base : small_shapes)
      for (int variant = 0; variant < 8; ++variant) {
        Case t = base;
        t.trans_a = variant & 1;
        t.trans_b = variant & 2;
        t.padding = variant & 4 ? 3 : 0;
        const bool accumulate = variant % 3 == 0;
        INFO(describe(t) << (accumulate ? " accumulate" : "") << " kernel " << kernel.name << " "
                         << sizeof(TestType) * 8 << "-bit");
        const Operands<TestType> x = make_operands<TestType>(t, seed++);
        std::vector<TestType> direct = x.c.values, packed = x.c.values;
        detail::gemm_with(kernel, x.shape, x.a.values.data(), x.b.values.data(), direct.data(),
                          accumulate, 1);
        detail::gemm_with(blocked, x.shape, x.a.values.data(), x.b.values.data(), packed.data(),
                          accumulate, 1);
        REQUIRE(std::memcmp(direct.data(), packed.data(), direct.size() * sizeof(TestType)) == 0);
        std::vector<TestType> reference = x.c.values;
        atencion::gemm_reference(x.shape, x.a.values.data(), x.b.values.data(), reference.data(),
                                 accumulate);
        require_close(x, direct, reference, accumulate);
      }
  }
}

// A direct tile that only counts its calls: which products take the direct path.
template <typename T>
int direct_calls = 0;

template <typename T>
void count_direct_call(int64_t, const T*, int64_t, int64_t, const T*, int64_t, T*, int64_t, int,
                       bool) {
  ++direct_calls<T>;
}

// The bits test above would pass as well if no product took the direct tiles: this one pins
// the choice (gemm.cpp's runs_direct). Direct: a k sum of one block (k <= kc: 256 floats, 128
// doubles) with op(B) of at most 256·256 values, and a transposed A of fewer than 128·128.
// Blocked: a longer sum, a larger op(B), a larger transposed A.
TEMPLATE_TEST_CASE("gemm takes the direct tiles for small products only", "[gemm][direct]",
                   float, double) {
  const detail::MicroKernel<TestType> best = kernels_this_cpu_runs<TestType>().back();
  if (best.width == 0) {
    WARN("no kernel with direct tiles on this CPU: nothing to check");
    return;
  }
  detail::MicroKernel<TestType> counting = best;
  for (auto& by_vectors : counting.direct)
    for (auto& by_rows : by_vectors)
      for (auto& tile : by_rows) tile = &count_direct_call<TestType>;
  counting.row = nullptr;  // one-row products have a path of their own (the test below)
  const int64_t kc = 1024 / sizeof(TestType);
  const auto takes_direct_path = [&](Case t) {
    const Operands<TestType> x = make_operands<TestType>(t, 1000);
    std::vector<TestType> c = x.c.values;
    direct_calls<TestType> = 0;
    detail::gemm_with(counting, x.shape, x.a.values.data(), x.b.values.data(), c.data(), false,
                      1);
    return direct_calls<TestType> > 0;
  };
  CHECK(takes_direct_path({1, 1, 1}));
  CHECK(takes_direct_path({20, 32, 20}));
  CHECK(takes_direct_path({64, 64, 64, true, true}));
  CHECK(takes_direct_path({40, 256, kc}));             // op(B) 256 x kc: packed, still direct
  CHECK_FALSE(takes_direct_path({20, 32, kc + 1}));    // two blocks of the k sum
  CHECK_FALSE(takes_direct_path({8, 256 * 256 / kc + 1, kc}));  // op(B) over 256·256 values
  CHECK_FALSE(takes_direct_path({128, 8, 128, true}));  // a transposed A of 128·128 values
  CHECK(takes_direct_path({127, 8, 128, true}));
}

int row_calls = 0;
void count_row_call(const GemmShape&, const float*, const float*, float*, bool, int64_t, int64_t,
                    int64_t) {
  ++row_calls;
}

// Where the kernel has a one-row product (AVX2, AVX-512), every product of one row takes it,
// small or large, and no product of two rows does.
TEST_CASE("gemm gives products of one row to the kernel's row function", "[gemm]") {
  detail::MicroKernel<float> counting = kernels_this_cpu_runs<float>().back();
  if (!counting.row) {
    WARN("no one-row product on this CPU: nothing to check");
    return;
  }
  counting.row = &count_row_call;
  const auto takes_row_path = [&](Case t) {
    const Operands<float> x = make_operands<float>(t, 1100);
    std::vector<float> c = x.c.values;
    row_calls = 0;
    detail::gemm_with(counting, x.shape, x.a.values.data(), x.b.values.data(), c.data(), false,
                      2);
    return row_calls > 0;
  };
  CHECK(takes_row_path({1, 1, 1}));
  CHECK(takes_row_path({1, 2304, 768, false, true}));
  CHECK(takes_row_path({1, 500, 700, true, false}));
  CHECK_FALSE(takes_row_path({2, 2304, 768, false, true}));
}

// A small product with enough work for several threads splits its rows (B as stored) or its
// columns (B transposed, each thread packing its own; its rows where there are fewer column
// panels than threads, each thread packing all of it): 1, 2, 3 and 5 threads give the same bits.
TEMPLATE_TEST_CASE("gemm's direct path gives the same bits for teams of 1, 2, 3 and 5 threads",
                   "[gemm][direct][threads]", float, double) {
  const detail::MicroKernel<TestType> kernel = kernels_this_cpu_runs<TestType>().back();
  uint32_t seed = 800;
  for (const Case& base :
       {Case{150, 120, 100}, Case{250, 40, 128}, Case{30, 250, 128}, Case{1100, 20, 127}})
    for (bool trans_b : {false, true}) {
      Case t = base;
      t.trans_b = trans_b;
      t.trans_a = !trans_b;
      INFO(describe(t) << " kernel " << kernel.name);
      const Operands<TestType> x = make_operands<TestType>(t, seed++);
      std::vector<TestType> one = x.c.values;
      detail::gemm_with(kernel, x.shape, x.a.values.data(), x.b.values.data(), one.data(), false,
                        1);
      for (int team : {2, 3, 5}) {
        INFO(team << " threads");
        std::vector<TestType> many = x.c.values;
        detail::gemm_with(kernel, x.shape, x.a.values.data(), x.b.values.data(), many.data(),
                          false, team);
        REQUIRE(std::memcmp(one.data(), many.data(), one.size() * sizeof(TestType)) == 0);
      }
      std::vector<TestType> reference = x.c.values;
      atencion::gemm_reference(x.shape, x.a.values.data(), x.b.values.data(), reference.data(),
                               false);
      require_close(x, one, reference, false);
    }
}

// Products at offsets (batch dims that do not merge into one stride): in any order of the
// matrices in memory, each product is its own, on 1 and 2 threads with the same bits.
TEMPLATE_TEST_CASE("gemm_batched_at multiplies the matrices at the offsets it is given",
                   "[gemm][batched]", float, double) {
  const int64_t batch = 12, m = 20, n = 32, k = 20;  // attention's P·V, enough for 2 threads
  const Stored<TestType> a = random_stored<TestType>(batch * m, k, 0, 900);
  const Stored<TestType> b = random_stored<TestType>(batch * k, n, 0, 901);
  std::vector<int64_t> offsets_a, offsets_b, offsets_c;
  for (int64_t i = 0; i < batch; ++i) {  // A read backwards, B in a stride-5 walk
    offsets_a.push_back((batch - 1 - i) * m * k);
    offsets_b.push_back((i * 5 % batch) * k * n);
    offsets_c.push_back(i * m * n);
  }
  const GemmShape shape{m, n, k, false, false, k, n, n};
  std::vector<TestType> reference(batch * m * n), one(batch * m * n, 7), two(batch * m * n, 7);
  for (int64_t i = 0; i < batch; ++i)
    atencion::gemm_reference(shape, a.values.data() + offsets_a[i],
                             b.values.data() + offsets_b[i], reference.data() + offsets_c[i],
                             false);
  const auto multiply_into = [&](std::vector<TestType>& out) {
    atencion::gemm_batched_at(shape, batch, a.values.data(), offsets_a.data(), b.values.data(),
                              offsets_b.data(), out.data(), offsets_c.data(), false);
  };
  with_threads(1, [&] { multiply_into(one); });
  with_threads(2, [&] { multiply_into(two); });
  REQUIRE(std::memcmp(one.data(), two.data(), one.size() * sizeof(TestType)) == 0);
  REQUIRE(count_far_apart(one, reference, k) == 0);
}

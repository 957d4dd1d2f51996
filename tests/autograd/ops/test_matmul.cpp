// tests/autograd/ops/test_matmul.cpp — gradchecks of matmul in every transpose form, batched.
#include <catch2/catch.hpp>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"
#include "tensor/random.h"
#include "tensor/threads.h"

using namespace atencion;
using namespace atencion::testing;

using Inputs = std::vector<Variable>;

TEST_CASE("matmul: gradcheck, all four transpose forms", "[gradcheck][matmul]") {
  // op(a) is [2, 3] and op(b) is [3, 4] in every case.
  const Tensor a = random_f64({2, 3}, 1), a_t = random_f64({3, 2}, 2);
  const Tensor b = random_f64({3, 4}, 3), b_t = random_f64({4, 3}, 4);
  auto with = [](Trans trans_a, Trans trans_b) {
    return [=](const Inputs& v) { return matmul(v[0], v[1], trans_a, trans_b); };
  };
  CHECK(gradcheck(with(Trans::No, Trans::No), {a, b}));
  CHECK(gradcheck(with(Trans::Yes, Trans::No), {a_t, b}));
  CHECK(gradcheck(with(Trans::No, Trans::Yes), {a, b_t}));
  CHECK(gradcheck(with(Trans::Yes, Trans::Yes), {a_t, b_t}));
}

TEST_CASE("matmul: gradcheck, batched with broadcast batch dims", "[gradcheck][matmul]") {
  auto f = [](const Inputs& v) { return matmul(v[0], v[1]); };
  CHECK(gradcheck(f, {random_f64({2, 2, 3}, 1), random_f64({2, 3, 2}, 2)}));
  CHECK(gradcheck(f, {random_f64({2, 1, 2, 3}, 1), random_f64({3, 3, 2}, 2)}));  // [2,1]·[3]
  CHECK(gradcheck(f, {random_f64({2, 2, 3}, 1), random_f64({3, 4}, 2)}));        // shared weight
  auto transposed = [](const Inputs& v) { return matmul(v[0], v[1], Trans::Yes, Trans::Yes); };
  CHECK(gradcheck(transposed, {random_f64({1, 3, 2}, 1), random_f64({2, 4, 3}, 2)}));
}

TEST_CASE("matmul: a weight shared over the batch gets one folded gradient",
          "[gradcheck][matmul]") {
  // x Wᵀ as a Linear computes it: the weight gradient is Σ_batch Gᵀ·X, taken as one product.
  auto linear = [](const Inputs& v) { return matmul(v[0], v[1], Trans::No, Trans::Yes); };
  CHECK(gradcheck(linear, {random_f64({2, 3, 2, 3}, 1), random_f64({4, 3}, 2)}));
  // An input whose batch dims are not contiguous (reshape must copy it first).
  CHECK(gradcheck(linear, {random_f64({3, 2, 2, 3}, 3).transpose(0, 1), random_f64({4, 3}, 4)}));
  // The gradient equals the per-item products added up.
  const Tensor x = random_f64({3, 4, 5}, 5), g = random_f64({3, 4, 2}, 7);
  Variable weight(random_f64({2, 5}, 6), true);
  matmul(Variable(x), weight, Trans::No, Trans::Yes).backward(g);
  Tensor expected = Tensor::zeros({2, 5}, DType::Float64);
  for (int64_t i = 0; i < 3; ++i) {
    add_(expected, matmul_reference(g.select(0, i), x.select(0, i), Trans::Yes, Trans::No));
  }
  CHECK(allclose(weight.grad(), expected, 1e-12, 1e-12));
}

TEST_CASE("matmul: a shared weight gives the same bits with 1 and 2 threads", "[matmul]") {
  // Large enough that the folded products and the element-wise ops run on both threads.
  Generator generator(8);
  const Tensor x_value = randn({8, 64, 128}, generator), w_value = randn({256, 128}, generator);
  const Tensor g = randn({8, 64, 256}, generator);
  auto run = [&](int threads) {
    set_num_threads(threads);
    Variable x(x_value, true), weight(w_value, true);
    Variable y = matmul(x, weight, Trans::No, Trans::Yes);
    y.backward(g);
    return std::vector<std::vector<double>>{y.value().to_vector(), x.grad().to_vector(),
                                            weight.grad().to_vector()};
  };
  const int saved = num_threads();
  const auto serial = run(1);
  const auto parallel = run(2);
  set_num_threads(saved);
  CHECK(serial == parallel);
}

TEST_CASE("matmul: gradcheck with strided operands and a value used twice",
          "[gradcheck][matmul]") {
  auto f = [](const Inputs& v) { return matmul(v[0], v[1]); };
  CHECK(gradcheck(f, {random_f64({3, 2}, 1).t(), random_f64({3, 8}, 2).slice(1, 1, 8, 2)}));
  CHECK(gradcheck([](const Inputs& v) { return matmul(v[0], v[0], Trans::No, Trans::Yes); },
                  {random_f64({3, 2}, 3)}));  // x xᵀ
}

TEST_CASE("matmul: the gradients by hand", "[matmul]") {
  Variable a(Tensor::from({{1.0, 2.0}}, DType::Float64), true);         // [1, 2]
  Variable b(Tensor::from({{3.0}, {4.0}}, DType::Float64), true);       // [2, 1]
  Variable y = matmul(a, b);                                            // [[11]]
  CHECK(y.item() == 11.0);
  y.backward();
  CHECK(a.grad().to_vector() == std::vector<double>{3.0, 4.0});  // G·Bᵀ
  CHECK(b.grad().to_vector() == std::vector<double>{1.0, 2.0});  // Aᵀ·G
}

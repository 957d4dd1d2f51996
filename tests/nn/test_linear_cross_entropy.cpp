// tests/nn/test_linear_cross_entropy.cpp — nn/linear_cross_entropy.cpp: the fused, chunked
// projection + cross-entropy against the same thing composed of matmul, add and cross_entropy.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/loss.h"
#include "tensor/random.h"
#include "tensor/threads.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

namespace {

struct Result {
  double loss;
  std::vector<double> grad_input, grad_weight, grad_bias;
};

// One forward and backward, fused (chunk_rows > 0) or composed (chunk_rows = 0).
Result run(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& targets,
           const CrossEntropyOptions& options, int64_t chunk_rows) {
  Variable h(input, true), W(weight, true), b = bias.defined() ? Variable(bias, true) : Variable();
  Variable loss;
  if (chunk_rows > 0) {
    loss = linear_cross_entropy(h, W, b, targets, options, chunk_rows);
  } else {
    Variable logits = matmul(h, W, Trans::No, Trans::Yes);
    loss = cross_entropy(b.defined() ? add(logits, b) : logits, targets, options);
  }
  loss.backward(Tensor::scalar(0.75, input.dtype()));  // a gradient other than 1 arriving
  return {loss.item(), h.grad().to_vector(), W.grad().to_vector(),
          b.defined() ? b.grad().to_vector() : std::vector<double>{}};
}

void require_close(const std::vector<double>& fused, const std::vector<double>& composed,
                   double tolerance) {
  REQUIRE(fused.size() == composed.size());
  for (size_t i = 0; i < fused.size(); ++i) {
    INFO("element " << i);
    REQUIRE(fused[i] == Approx(composed[i]).margin(tolerance).epsilon(tolerance));
  }
}

}  // namespace

TEST_CASE("linear_cross_entropy: equals matmul + add + cross_entropy in float64",
          "[loss][linear_cross_entropy]") {
  Generator generator(11);
  // [2, 7] positions of d = 5 into C = 13 classes; id 0 is padding in some options.
  const Tensor input = randn({2, 7, 5}, generator, DType::Float64);
  const Tensor weight = randn({13, 5}, generator, DType::Float64);
  const Tensor bias = randn({13}, generator, DType::Float64);
  const Tensor targets =
      Tensor::from_ids({3, 0, 12, 5, 0, 0, 1, 7, 7, 2, 0, 11, 4, 9}, {2, 7});
  for (const CrossEntropyOptions options :
       {CrossEntropyOptions{}, CrossEntropyOptions{.ignore_index = 0, .label_smoothing = 0.1},
        CrossEntropyOptions{.ignore_index = 0, .label_smoothing = 0.2,
                            .reduction = Reduction::Sum}}) {
    for (const Tensor& b : {bias, Tensor()}) {
      const Result composed = run(input, weight, b, targets, options, 0);
      for (int64_t chunk_rows : {1, 3, 14, 256}) {
        INFO("chunk_rows " << chunk_rows << ", bias " << b.defined() << ", smoothing "
                           << options.label_smoothing);
        const Result fused = run(input, weight, b, targets, options, chunk_rows);
        REQUIRE(fused.loss == Approx(composed.loss).epsilon(1e-13));
        require_close(fused.grad_input, composed.grad_input, 1e-13);
        require_close(fused.grad_weight, composed.grad_weight, 1e-13);
        require_close(fused.grad_bias, composed.grad_bias, 1e-13);
      }
    }
  }
}

TEST_CASE("linear_cross_entropy: for loss.backward() the forward's gradients become .grad uncopied",
          "[loss][linear_cross_entropy]") {
  Generator generator(15);
  const Tensor input = randn({40, 16}, generator, DType::Float64);
  const Tensor weight = randn({50, 16}, generator, DType::Float64);
  const Tensor bias = randn({50}, generator, DType::Float64);
  std::vector<int64_t> ids(40);
  for (auto& id : ids) id = generator.randint(0, 50);
  const Tensor targets = Tensor::from_ids(ids, {40});
  const CrossEntropyOptions options{.label_smoothing = 0.1};
  Variable h(input, true), W(weight, true), b(bias, true);
  Variable composed = cross_entropy(add(matmul(h, W, Trans::No, Trans::Yes), b), targets, options);
  composed.backward();
  const Result expected{composed.item(), h.grad().to_vector(), W.grad().to_vector(),
                        b.grad().to_vector()};
  h.zero_grad();
  W.zero_grad();
  b.zero_grad();

  Variable loss = linear_cross_entropy(h, W, b, targets, options, 16);
  const std::size_t live_before = Storage::live_bytes();
  Storage::reset_peak_bytes();
  loss.backward();  // g = 1
  // No new gradient storage at all: only dL/dL = 1 (one element) was allocated.
  REQUIRE(Storage::peak_bytes() - live_before <= sizeof(double));
  require_close(h.grad().to_vector(), expected.grad_input, 1e-13);
  require_close(W.grad().to_vector(), expected.grad_weight, 1e-13);
  require_close(b.grad().to_vector(), expected.grad_bias, 1e-13);

  SECTION("kept for a second backward, the gradients add up") {
    h.zero_grad();
    W.zero_grad();
    b.zero_grad();
    Variable twice = linear_cross_entropy(h, W, b, targets, options, 16);
    twice.backward(/*retain_graph=*/true);
    twice.backward();
    std::vector<double> doubled = expected.grad_weight;
    for (double& value : doubled) value *= 2;
    require_close(W.grad().to_vector(), doubled, 1e-13);
  }
}

TEST_CASE("linear_cross_entropy: gradcheck in float64", "[loss][linear_cross_entropy][gradcheck]") {
  Generator generator(12);
  const Tensor input = randn({6, 4}, generator, DType::Float64);
  const Tensor weight = randn({9, 4}, generator, DType::Float64);
  const Tensor bias = randn({9}, generator, DType::Float64);
  const Tensor targets = Tensor::from_ids({8, 0, 3, 3, 0, 1}, {6});
  const auto result = gradcheck(
      [&](const std::vector<Variable>& inputs) {
        return linear_cross_entropy(inputs[0], inputs[1], inputs[2], targets,
                                    {.ignore_index = 0, .label_smoothing = 0.1}, 4);
      },
      {input, weight, bias});
  INFO(result.message);
  REQUIRE(result.ok);
}

TEST_CASE("linear_cross_entropy: float32 close to the composed op, same bits for 1 or 2 threads",
          "[loss][linear_cross_entropy][threads]") {
  Generator generator(13);
  const Tensor input = randn({300, 64}, generator);  // two chunks of 256 rows, the second short
  const Tensor weight = mul(randn({1000, 64}, generator), 0.1);
  const Tensor bias = mul(randn({1000}, generator), 0.1);
  std::vector<int64_t> ids(300);
  for (auto& id : ids) id = generator.randint(0, 1000);
  const Tensor targets = Tensor::from_ids(ids, {300});
  const CrossEntropyOptions options{.label_smoothing = 0.1};
  const Result composed = run(input, weight, bias, targets, options, 0);
  std::vector<Result> fused;
  const int previous = num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    fused.push_back(run(input, weight, bias, targets, options, 256));
  }
  set_num_threads(previous);
  REQUIRE(fused[0].loss == Approx(composed.loss).epsilon(1e-6));
  require_close(fused[0].grad_input, composed.grad_input, 1e-5);
  require_close(fused[0].grad_weight, composed.grad_weight, 1e-5);
  require_close(fused[0].grad_bias, composed.grad_bias, 1e-5);
  REQUIRE(fused[0].loss == fused[1].loss);
  REQUIRE(fused[0].grad_input == fused[1].grad_input);
  REQUIRE(fused[0].grad_weight == fused[1].grad_weight);
  REQUIRE(fused[0].grad_bias == fused[1].grad_bias);
}

TEST_CASE("linear_cross_entropy: no gradients are worked out without a graph",
          "[loss][linear_cross_entropy]") {
  Generator generator(14);
  const Tensor input = randn({5, 3}, generator, DType::Float64);
  const Tensor weight = randn({4, 3}, generator, DType::Float64);
  const Tensor targets = Tensor::from_ids({0, 1, 2, 3, 1}, {5});
  Variable with_graph = linear_cross_entropy(Variable(input, true), Variable(weight, true),
                                             Variable(), targets);
  NoGradGuard no_grad;
  Variable without = linear_cross_entropy(Variable(input, true), Variable(weight, true),
                                          Variable(), targets);
  REQUIRE_FALSE(without.requires_grad());
  REQUIRE(without.item() == with_graph.item());
}

TEST_CASE("linear_cross_entropy: bad input is refused with the shapes",
          "[loss][linear_cross_entropy]") {
  Variable input(Tensor::zeros({2, 3}), true), weight(Tensor::zeros({4, 3}), true);
  REQUIRE_THROWS_WITH(
      linear_cross_entropy(input, Variable(Tensor::zeros({4, 2}), true), Variable(),
                           Tensor::from_ids({1, 2}, {2})),
      Contains("linear_cross_entropy: input [2, 3], weight [4, 2] and targets [2]"));
  REQUIRE_THROWS_WITH(linear_cross_entropy(input, weight, Variable(Tensor::zeros({3}), true),
                                           Tensor::from_ids({1, 2}, {2})),
                      Contains("bias must be [classes]"));
  REQUIRE_THROWS_WITH(
      linear_cross_entropy(input, weight, Variable(), Tensor::from_ids({1, 2, 3}, {3})),
      Contains("targets must have the input's shape without its last dim, [2]"));
  REQUIRE_THROWS_WITH(
      linear_cross_entropy(input, weight, Variable(), Tensor::from_ids({1, 4}, {2})),
      Contains("linear_cross_entropy: target 4 at position 1 is outside [0, 4)"));
  REQUIRE_THROWS_WITH(
      linear_cross_entropy(input, weight, Variable(), Tensor::from_ids({1, 2}, {2}), {}, 0),
      Contains("chunk_rows 0"));
}

// tests/nn/test_feed_forward.cpp — nn/feed_forward.cpp: Linear → Dropout → ReLU → Linear.
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/feed_forward.h"

using namespace atencion;
using namespace atencion::nn;

TEST_CASE("FeedForward: max(0, x W₁ᵀ + b₁) W₂ᵀ + b₂ with torch's names", "[feed_forward]") {
  Generator generator(1);
  FeedForward feed_forward(2, 3, 0.0, generator);
  const auto names = feed_forward.named_parameters();
  REQUIRE(names.size() == 4);
  REQUIRE(names[0].first == "linear1.weight");
  REQUIRE(names[3].first == "linear2.bias");
  feed_forward.to(DType::Float64);
  feed_forward.linear1->weight.mutable_value() =
      Tensor::from({{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}}, DType::Float64);
  feed_forward.linear1->bias.mutable_value() = Tensor::from({0.0, 0.0, -10.0}, DType::Float64);
  feed_forward.linear2->weight.mutable_value() =
      Tensor::from({{1.0, 1.0, 1.0}, {1.0, -1.0, 5.0}}, DType::Float64);
  feed_forward.linear2->bias.mutable_value() = Tensor::from({0.5, 0.0}, DType::Float64);
  // x = [2, −3]: hidden = relu([2, −3, −11]) = [2, 0, 0]; out = [2 + 0.5, 2].
  const Tensor y = feed_forward(Variable(Tensor::from({{2.0, -3.0}}, DType::Float64))).value();
  REQUIRE(y.to_vector() == std::vector<double>{2.5, 2.0});
}

TEST_CASE("FeedForward: gradcheck w.r.t. input and parameters in float64",
          "[feed_forward][gradcheck]") {
  Generator generator(2);
  FeedForward feed_forward(4, 6, 0.1, generator);
  feed_forward.eval();  // dropout off: the check needs a deterministic function
  feed_forward.to(DType::Float64);
  const auto result = gradcheck(
      [&](const std::vector<Variable>& inputs) { return feed_forward(inputs[0]); },
      {randn({2, 3, 4}, generator, DType::Float64)}, feed_forward.parameters());
  INFO(result.message);
  REQUIRE(result.ok);
}

TEST_CASE("FeedForward: dropout acts only while training", "[feed_forward]") {
  Generator generator(3);
  FeedForward feed_forward(4, 64, 0.5, generator);
  const Variable x(randn({8, 4}, generator));
  feed_forward.eval();
  const Tensor first = feed_forward(x).value();
  REQUIRE(allclose(first, feed_forward(x).value()));
  feed_forward.train();
  REQUIRE_FALSE(allclose(first, feed_forward(x).value()));
}

TEST_CASE("FeedForward: dropout before relu gives PyTorch's relu-then-dropout, and keeps less",
          "[feed_forward]") {
  Generator generator(4);
  Generator same_generator(4);
  FeedForward feed_forward(8, 32, 0.3, generator);
  FeedForward reference(8, 32, 0.3, same_generator);  // the same weights and dropout seed
  const Tensor input = randn({5, 8}, generator);
  Variable x(input, true), x_reference(input, true);

  const std::size_t live_before = Storage::live_bytes();
  Variable y = feed_forward(x);
  // Saved for the backward: relu's output ([5, 32] floats, linear2's input) and nothing else
  // of the hidden layer, besides y itself ([5, 8]) and dropout's replayable draws.
  REQUIRE(Storage::live_bytes() - live_before == (5 * 32 + 5 * 8) * sizeof(float));
  // torch.nn.TransformerEncoderLayer's order: linear2(dropout(relu(linear1(x))))
  Variable y_reference =
      (*reference.linear2)((*reference.dropout)(relu((*reference.linear1)(x_reference))));
  REQUIRE(y.value().to_vector() == y_reference.value().to_vector());

  sum(mul(y, y)).backward();
  sum(mul(y_reference, y_reference)).backward();
  REQUIRE(x.grad().to_vector() == x_reference.grad().to_vector());
  REQUIRE(feed_forward.linear1->weight.grad().to_vector() ==
          reference.linear1->weight.grad().to_vector());
  REQUIRE(feed_forward.linear2->weight.grad().to_vector() ==
          reference.linear2->weight.grad().to_vector());
}

TEST_CASE("FeedForward: GPT-2's gelu(tanh) between the Linears, gradcheck in float64",
          "[feed_forward][gradcheck]") {
  Generator generator(5);
  FeedForward feed_forward(4, 16, 0.1, generator, Activation::GELUTanh);
  feed_forward.eval();
  feed_forward.to(DType::Float64);
  const Variable x(randn({2, 3, 4}, generator, DType::Float64));
  // The same lines by hand: gelu_tanh(x W₁ᵀ + b₁) W₂ᵀ + b₂.
  const Variable expected = (*feed_forward.linear2)(
      gelu((*feed_forward.linear1)(x), GeluApproximation::Tanh));
  REQUIRE(allclose(feed_forward(x).value(), expected.value(), 0, 0));
  const auto result = gradcheck(
      [&](const std::vector<Variable>& inputs) { return feed_forward(inputs[0]); },
      {x.value()}, feed_forward.parameters());
  INFO(result.message);
  REQUIRE(result.ok);
}

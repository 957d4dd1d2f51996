// tests/nn/test_loss.cpp — nn/loss.cpp: cross_entropy by hand, against torch, and gradchecked.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "tensor/random.h"
#include "tensor/threads.h"
#include "fixture.h"
#include "nn/loss.h"

using namespace atencion;
using namespace atencion::nn;
using atencion::testing::Fixture;
using atencion::testing::matches;
using Catch::Matchers::Contains;

TEST_CASE("counted_rows: the positions whose target is not ignore_index", "[loss]") {
  const int64_t ignored = kIgnoreIndex;
  const Tensor targets = Tensor::from_ids({ignored, 4, ignored, 0, 7, ignored}, {2, 3});
  const CountedRows counted = counted_rows(targets);
  CHECK(counted.count == 3);
  CHECK(counted.rows.to_ids() == std::vector<int64_t>{1, 3, 4});
  CHECK(counted.targets.to_ids() == std::vector<int64_t>{4, 0, 7});
  CHECK(counted_rows(targets, 0).rows.to_ids() == std::vector<int64_t>{0, 1, 2, 4, 5});
  CHECK(counted_rows(Tensor::full({2}, static_cast<double>(kIgnoreIndex), DType::Int64)).count == 0);
  CHECK(CrossEntropyOptions{}.ignore_index == -100);  // torch's default
  CHECK_THROWS_WITH(counted_rows(Tensor::ones({3})),
                    Contains("counted_rows: targets must be Int64, got float32"));
}

TEST_CASE("cross_entropy: hand values", "[loss]") {
  // Row 0: logits [0, 0, 0] → p = 1/3 each, −log p_y = log 3.
  // Row 1: logits [ln 1, ln 2, ln 5] → p = [1/8, 2/8, 5/8]; target 2: −log(5/8).
  Variable logits(Tensor::from({{0.0, 0.0, 0.0}, {0.0, std::log(2.0), std::log(5.0)}},
                               DType::Float64), true);
  const Tensor targets = Tensor::from_ids({1, 2}, {2});
  Variable loss = cross_entropy(logits, targets);
  REQUIRE(loss.item() == Approx((std::log(3.0) - std::log(5.0 / 8)) / 2).epsilon(1e-14));
  loss.backward();
  // dL/dz = (p − onehot) / N
  const auto grad = logits.grad().to_vector();
  REQUIRE(grad[1] == Approx((1.0 / 3 - 1) / 2).epsilon(1e-14));
  REQUIRE(grad[5] == Approx((5.0 / 8 - 1) / 2).epsilon(1e-14));
  REQUIRE(grad[3] == Approx(1.0 / 8 / 2).epsilon(1e-14));

  SECTION("label smoothing: (1 − ε)·NLL + ε·mean_c(−log p_c)") {
    const double eps = 0.3;
    const double row0 = std::log(3.0);  // uniform p: both terms are log 3
    const double smooth1 = -(std::log(1.0 / 8) + std::log(2.0 / 8) + std::log(5.0 / 8)) / 3;
    const double row1 = (1 - eps) * -std::log(5.0 / 8) + eps * smooth1;
    Variable smoothed = cross_entropy(logits, targets, {.label_smoothing = eps});
    REQUIRE(smoothed.item() == Approx((row0 + row1) / 2).epsilon(1e-14));
  }
  SECTION("ignore_index: the ignored row counts neither in the sum nor in N") {
    const Tensor padded = Tensor::from_ids({0, 2}, {2});
    Variable partial = cross_entropy(logits, padded, {.ignore_index = 0});
    REQUIRE(partial.item() == Approx(-std::log(5.0 / 8)).epsilon(1e-14));
    logits.zero_grad();
    partial.backward();
    for (int c = 0; c < 3; ++c) REQUIRE(logits.grad().at({0, c}) == 0.0);
    REQUIRE(logits.grad().at({1, 2}) == Approx(5.0 / 8 - 1).epsilon(1e-14));  // N = 1
    // Nothing left: NaN, as torch.
    REQUIRE(std::isnan(cross_entropy(logits, Tensor::from_ids({0, 0}, {2}), {.ignore_index = 0}).item()));
  }
  SECTION("sum and none reductions") {
    Variable total = cross_entropy(logits, targets, {.reduction = Reduction::Sum});
    REQUIRE(total.item() == Approx(std::log(3.0) - std::log(5.0 / 8)).epsilon(1e-14));
    Variable each = cross_entropy(logits, targets, {.reduction = Reduction::None});
    REQUIRE(each.shape() == Shape{2});
    REQUIRE(each.value().to_vector()[0] == Approx(std::log(3.0)).epsilon(1e-14));
  }
}

TEST_CASE("cross_entropy: stable for huge logits (log-softmax, never exp overflow)", "[loss]") {
  Variable logits(Tensor::from({{1000.0, 0.0}, {-1000.0, 1000.0}}), true);
  Variable loss = cross_entropy(logits, Tensor::from_ids({1, 1}, {2}));
  REQUIRE(loss.item() == Approx(500.0));  // row 0: −log p_1 = 1000; row 1: 0
  loss.backward();
  REQUIRE(std::isfinite(logits.grad().to_vector()[0]));
  REQUIRE(logits.grad().at({0, 0}) == Approx(0.5));
}

TEST_CASE("cross_entropy: matches torch.nn.functional.cross_entropy", "[loss][fixture]") {
  for (const std::string name :
       {"plain_f64", "ignore_smoothing_f64", "sum_f64", "none_f64", "ignore_smoothing_f32"}) {
    const Fixture fixture("cross_entropy_" + name);
    INFO(fixture.name());
    const std::string reduction = fixture.meta("reduction");
    const CrossEntropyOptions options{
        .ignore_index = fixture.meta_int("ignore_index"),
        .label_smoothing = std::stod(fixture.meta("label_smoothing")),
        .reduction = reduction == "mean"  ? Reduction::Mean
                     : reduction == "sum" ? Reduction::Sum
                                          : Reduction::None};
    Variable logits = fixture.input_variable("logits");
    Variable loss = cross_entropy(logits, fixture.input("targets"), options);
    REQUIRE(matches(loss.value(), fixture.output()));
    loss.backward(fixture.grad_output());
    REQUIRE(matches(logits.grad(), fixture.grad_input("logits")));
  }
}

TEST_CASE("cross_entropy: gradcheck in float64", "[loss][cross_entropy][gradcheck]") {
  Generator generator(3);
  const Tensor logits = randn({2, 3, 5}, generator, DType::Float64);
  const Tensor targets = Tensor::from_ids({4, 0, 2, 1, 0, 3}, {2, 3});
  for (const CrossEntropyOptions options :
       {CrossEntropyOptions{}, CrossEntropyOptions{.ignore_index = 0, .label_smoothing = 0.1},
        CrossEntropyOptions{.ignore_index = 0, .label_smoothing = 0.25,
                            .reduction = Reduction::None}}) {
    const auto result = gradcheck(
        [&](const std::vector<Variable>& inputs) {
          return cross_entropy(inputs[0], targets, options);
        },
        {logits});
    INFO(result.message);
    REQUIRE(result.ok);
  }
}

TEST_CASE("cross_entropy: bad input is refused with the shapes", "[loss]") {
  Variable logits(Tensor::zeros({2, 3}), true);
  REQUIRE_THROWS_WITH(cross_entropy(logits, Tensor::from_ids({1, 2, 0}, {3})),
                      Contains("cross_entropy: logits [2, 3] and targets [3]"));
  REQUIRE_THROWS_WITH(cross_entropy(logits, Tensor::zeros({2})), Contains("expected int64"));
  REQUIRE_THROWS_AS(cross_entropy(logits, Tensor::from_ids({1, 3}, {2})), std::out_of_range);
  REQUIRE_THROWS_WITH(cross_entropy(logits, Tensor::from_ids({1, -1}, {2})),
                      Contains("target -1 at position 1 is outside [0, 3)"));
  REQUIRE_THROWS_WITH(cross_entropy(logits, Tensor::from_ids({1, 1}, {2}), {.label_smoothing = 2}),
                      Contains("label_smoothing"));
}

TEST_CASE("cross_entropy: the same bits with one thread or two", "[loss][threads]") {
  Generator generator(8);
  const Tensor logits = randn({64, 1000}, generator);  // large enough to run in parallel
  std::vector<int64_t> ids(64);
  for (auto& id : ids) id = generator.randint(0, 1000);
  const Tensor targets = Tensor::from_ids(ids, {64});
  std::vector<std::vector<double>> results;
  const int previous = num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    Variable input(logits, true);
    Variable loss = cross_entropy(input, targets, {.label_smoothing = 0.1});
    loss.backward();
    results.push_back({loss.item()});
    results.push_back(input.grad().to_vector());
  }
  set_num_threads(previous);
  REQUIRE(results[0] == results[2]);
  REQUIRE(results[1] == results[3]);
}

// tests/nn/optim/optim_fixture.h — replays an optimizer fixture of
// tools/make_fixtures_training.py: a Linear(4, 3) fitted by loss = mean((x Wᵀ + b − target)²),
// checking the loss before each step and the parameters after it against PyTorch's.
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "nn/fixture.h"
#include "nn/linear.h"
#include "nn/optim/optimizer.h"

namespace atencion::testing {

using MakeOptimizer =
    std::function<std::unique_ptr<nn::Optimizer>(std::vector<Variable> parameters)>;

// The fixture's problem: the loss of `linear` on its data.
inline Variable fixture_loss(nn::Linear& linear, const Fixture& fixture) {
  const Variable x(fixture.input("x"));
  const Variable target(fixture.input("target"));
  const Variable error = linear(x) - target;
  return mean(error * error);
}

// Runs the fixture's steps with a fresh Linear loaded with its starting values. When
// `restart_at` > 0, the optimizer is rebuilt from its state_dict() after that many steps (as a
// resumed run does), which must not change anything.
inline void require_steps_match_torch(const std::string& name, const MakeOptimizer& make,
                                      int restart_at = 0) {
  const Fixture fixture(name);
  const DType dtype = fixture.tensor("param.weight").dtype();
  Generator generator(7);
  nn::Linear linear(4, 3, generator);
  linear.to(dtype);
  linear.load_state_dict(fixture.parameters());
  std::unique_ptr<nn::Optimizer> optimizer = make(linear.parameters());
  const int steps = static_cast<int>(fixture.meta_int("steps"));
  REQUIRE(steps == 5);
  for (int step = 1; step <= steps; ++step) {
    INFO(name << ", step " << step);
    if (step == restart_at + 1 && restart_at > 0) {
      const auto state = optimizer->state_dict();
      optimizer = make(linear.parameters());
      optimizer->load_state_dict(state);
    }
    optimizer->zero_grad();
    Variable loss = fixture_loss(linear, fixture);
    REQUIRE(matches(loss.value(), fixture.tensor("step" + std::to_string(step) + ".loss")));
    loss.backward();
    optimizer->step();
    REQUIRE(matches(linear.weight.value(),
                    fixture.tensor("step" + std::to_string(step) + ".weight")));
    REQUIRE(matches(linear.bias.value(), fixture.tensor("step" + std::to_string(step) + ".bias")));
  }
}

}  // namespace atencion::testing

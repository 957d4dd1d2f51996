// tests/nn/optim/test_sgd.cpp — nn/optim/sgd.cpp against torch.optim.SGD and by hand.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "nn/optim/sgd.h"
#include "optim_fixture.h"

using namespace atencion;
using namespace atencion::nn;
using atencion::testing::require_steps_match_torch;
using Catch::Matchers::Contains;

TEST_CASE("SGD: momentum by hand: the buffer starts as g, then b = μb + g", "[optim][sgd]") {
  Variable p(Tensor::from({1.0}, DType::Float64), true);
  SGD sgd({p}, {.lr = 0.1, .momentum = 0.5});
  for (int step = 0; step < 2; ++step) {
    sgd.zero_grad();
    sum(p * 2.0).backward();  // g = 2 on every step
    sgd.step();
  }
  // step 1: b = 2, p = 1 − 0.2 = 0.8; step 2: b = 0.5·2 + 2 = 3, p = 0.8 − 0.3 = 0.5
  REQUIRE(p.item() == Approx(0.5).margin(1e-15));
  const Tensor buffer = sgd.state_dict().at(0).second;
  REQUIRE(buffer.item() == Approx(3.0));
  sgd.step();  // the buffer handed out is the optimizer's own, as in torch: b = 0.5·3 + 2
  REQUIRE(buffer.item() == Approx(3.5));
}

TEST_CASE("SGD: matches torch.optim.SGD over 5 steps", "[optim][sgd][fixture]") {
  SECTION("momentum 0.9, weight decay 0.01") {
    require_steps_match_torch("optim_sgd_momentum_f64", [](std::vector<Variable> parameters) {
      return std::make_unique<SGD>(std::move(parameters),
                                   SGDOptions{.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01});
    });
  }
  SECTION("nesterov") {
    require_steps_match_torch("optim_sgd_nesterov_f64", [](std::vector<Variable> parameters) {
      return std::make_unique<SGD>(std::move(parameters),
                                   SGDOptions{.lr = 0.05, .momentum = 0.8, .nesterov = true});
    });
  }
}

TEST_CASE("SGD: a run restarted from state_dict() continues exactly", "[optim][sgd][fixture]") {
  require_steps_match_torch(
      "optim_sgd_momentum_f64",
      [](std::vector<Variable> parameters) {
        return std::make_unique<SGD>(std::move(parameters),
                                     SGDOptions{.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01});
      },
      /*restart_at=*/2);
}

TEST_CASE("SGD: bad options and bad state are refused with a message", "[optim][sgd]") {
  Variable p(Tensor::zeros({2, 3}), true);
  REQUIRE_THROWS_WITH(SGD({p}, {.lr = 0.1, .nesterov = true}), Contains("nesterov needs momentum"));
  REQUIRE_THROWS_WITH(SGD({p}, {.lr = 0.1, .momentum = -1}), Contains(">= 0"));
  SGD sgd({p}, {.lr = 0.1, .momentum = 0.9});
  REQUIRE_THROWS_WITH(sgd.load_state_dict({{"0.momentum_buffer", Tensor::zeros({3, 2})}}),
                      Contains("'0.momentum_buffer' is [3, 2] float32, expected [2, 3] float32"));
  REQUIRE_THROWS_WITH(sgd.load_state_dict({{"7.momentum_buffer", Tensor::zeros({2, 3})}}),
                      Contains("1 entries, but only 0"));
}

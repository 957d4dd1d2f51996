// tests/nn/optim/test_adam.cpp — nn/optim/adam.cpp against torch.optim.Adam / AdamW and by hand.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/ops.h"
#include "nn/optim/adam.h"
#include "tensor/random.h"
#include "optim_fixture.h"

using namespace atencion;
using namespace atencion::nn;
using atencion::testing::require_steps_match_torch;
using Catch::Matchers::Contains;

TEST_CASE("Adam: the first step moves every parameter by about lr, whatever the gradient's size",
          "[optim][adam]") {
  // t = 1: m̂ = g, v̂ = g², so the update is lr · g / (|g| + ε) ≈ lr · sign(g).
  Variable p(Tensor::from({1.0, 1.0, 1.0}, DType::Float64), true);
  Adam adam({p}, {.lr = 0.1});
  sum(p * Variable(Tensor::from({1000.0, -0.001, 0.0}, DType::Float64))).backward();
  adam.step();
  const auto values = p.value().to_vector();
  REQUIRE(values[0] == Approx(1.0 - 0.1 * 1000 / (1000 + 1e-8)).epsilon(1e-14));
  REQUIRE(values[1] == Approx(1.0 + 0.1 * 0.001 / (0.001 + 1e-8)).epsilon(1e-14));
  REQUIRE(values[2] == 1.0);  // g = 0: m = 0, no move
  REQUIRE(adam.step_count(0) == 1);
}

TEST_CASE("Adam and AdamW: match torch.optim over 5 steps", "[optim][adam][fixture]") {
  SECTION("Adam, betas (0.9, 0.98), eps 1e-9, L2 weight decay 0.1") {
    require_steps_match_torch("optim_adam_f64", [](std::vector<Variable> parameters) {
      return std::make_unique<Adam>(
          std::move(parameters),
          AdamOptions{.lr = 0.05, .beta2 = 0.98, .eps = 1e-9, .weight_decay = 0.1});
    });
  }
  SECTION("AdamW, decoupled weight decay 0.1") {
    require_steps_match_torch("optim_adamw_f64", [](std::vector<Variable> parameters) {
      return std::make_unique<AdamW>(std::move(parameters),
                                     AdamWOptions{.lr = 0.05, .weight_decay = 0.1});
    });
  }
  SECTION("Adam in float32") {
    require_steps_match_torch("optim_adam_f32", [](std::vector<Variable> parameters) {
      return std::make_unique<Adam>(std::move(parameters), AdamOptions{.lr = 0.05});
    });
  }
}

TEST_CASE("Adam: a run restarted from state_dict() continues exactly", "[optim][adam][fixture]") {
  require_steps_match_torch(
      "optim_adamw_f64",
      [](std::vector<Variable> parameters) {
        return std::make_unique<AdamW>(std::move(parameters),
                                       AdamWOptions{.lr = 0.05, .weight_decay = 0.1});
      },
      /*restart_at=*/3);
}

TEST_CASE("Adam: state names, and bad options or state refused", "[optim][adam]") {
  Variable p(Tensor::zeros({2}), true), q(Tensor::zeros({1}), true);
  Adam adam({p, q}, {});
  REQUIRE(adam.state_dict().empty());  // nothing until a step
  sum(p * 3.0).backward();
  adam.step();
  const auto state = adam.state_dict();  // q had no gradient: no state
  REQUIRE(state.size() == 3);
  REQUIRE(state[0].first == "0.step");
  REQUIRE(state[0].second.dtype() == DType::Int64);
  REQUIRE(state[1].first == "0.exp_avg");
  REQUIRE(state[1].second.to_vector()[0] == Approx(0.3));  // (1 − β1)·g
  REQUIRE(state[2].first == "0.exp_avg_sq");
  REQUIRE(state[2].second.to_vector()[0] == Approx(0.009));  // (1 − β2)·g²

  REQUIRE_THROWS_WITH(Adam({p}, {.beta1 = 1.0}), Contains("betas"));
  REQUIRE_THROWS_WITH(AdamW({p}, {.eps = -1}), Contains("AdamW"));
  Adam fresh({p, q}, {});
  REQUIRE_THROWS_WITH(fresh.load_state_dict({state[0], state[1]}), Contains("missing '0.exp_avg_sq'"));
  REQUIRE_THROWS_WITH(fresh.load_state_dict({state[0], state[1], state[2],
                                             {"extra", Tensor::zeros({1})}}),
                      Contains("4 entries, but only 3"));
}

TEST_CASE("Adam: state_dict() hands out the moments themselves, as torch's does",
          "[optim][adam]") {
  Variable p(Tensor::zeros({2}), true);
  Adam adam({p}, {});
  sum(p * 3.0).backward();
  adam.step();
  const auto state = adam.state_dict();
  const float m_after_one_step = state[1].second.to_vector()[0];  // (1 − β1)·3
  REQUIRE(m_after_one_step == Approx(0.3));
  adam.step();  // the same gradient again: m ← 0.9·0.3 + 0.1·3, in the very buffer held above
  REQUIRE(state[1].second.to_vector()[0] == Approx(0.57));
  REQUIRE(state[2].second.to_vector()[0] == Approx(0.999 * 0.009 + 0.001 * 9));
  // what load_state_dict was given stays as it was: it copies
  Adam resumed({p}, {});
  const Tensor snapshot = state[1].second.clone();
  resumed.load_state_dict(state);
  resumed.step();
  REQUIRE(state[1].second.to_vector()[0] == Approx(snapshot.to_vector()[0]));
}

TEST_CASE("Adam: part_of cuts a tensor into contiguous parts that cover it", "[optim][adam]") {
  for (const int64_t numel : {0, 1, 2, 5, 37, 1000}) {
    for (const int count : {1, 2, 3, 7}) {
      int64_t next = 0;
      for (int index = 0; index < count; ++index) {
        const ElementRange part = part_of(numel, index, count);
        CHECK(part.begin == next);  // contiguous and disjoint
        CHECK(part.count() >= numel / count);
        CHECK(part.count() <= numel / count + 1);  // the sizes differ by at most one
        next = part.end;
      }
      CHECK(next == numel);  // together, all of them
    }
  }
  CHECK_THROWS_WITH(part_of(10, 2, 2), "part_of: part 2 of 2 of 10 elements");
}

TEST_CASE("Adam: step_part on three copies, parts put together, is step() to the bit",
          "[optim][adam]") {
  // Sizes below, at and above the number of parts; float32, as training runs.
  const std::vector<Shape> shapes{{37}, {3, 5}, {2}, {1}};
  const auto parameters_from = [&](uint64_t seed) {
    Generator generator(seed);
    std::vector<Variable> parameters;
    for (const Shape& shape : shapes)
      parameters.emplace_back(randn(shape, generator), true);
    return parameters;
  };
  constexpr int kParts = 3;
  const AdamWOptions options{.lr = 0.01, .weight_decay = 0.1};
  std::vector<Variable> whole = parameters_from(5);
  AdamW one(whole, options);
  std::vector<std::vector<Variable>> copies;
  std::vector<std::unique_ptr<AdamW>> parts;
  for (int index = 0; index < kParts; ++index) {
    copies.push_back(parameters_from(5));
    parts.push_back(std::make_unique<AdamW>(copies.back(), options));
  }
  Generator gradients(11);
  for (int step = 0; step < 4; ++step) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      const Tensor grad = randn(shapes[i], gradients);
      whole[i].set_grad(grad.clone());
      for (auto& copy : copies) copy[i].set_grad(grad.clone());
    }
    one.step();
    for (int index = 0; index < kParts; ++index) parts[index]->step_part(index, kParts);
    // Each copy's part r into every copy, as all_gather_parts does between processes.
    for (size_t i = 0; i < shapes.size(); ++i) {
      const int64_t numel = whole[i].value().numel();
      for (int owner = 0; owner < kParts; ++owner) {
        const ElementRange part = part_of(numel, owner, kParts);
        for (int index = 0; index < kParts; ++index) {
          Tensor& value = copies[index][i].mutable_value();
          for (int64_t k = part.begin; k < part.end; ++k)
            value.data<float>()[k] = copies[owner][i].value().data<float>()[k];
        }
      }
    }
    for (const auto& copy : copies)
      for (size_t i = 0; i < shapes.size(); ++i)
        REQUIRE(copy[i].value().to_vector() == whole[i].value().to_vector());
  }
  // The moments: each copy's own part is the whole run's.
  const std::vector<Tensor> moments = one.moments();
  REQUIRE(moments.size() == 2 * shapes.size());
  for (int index = 0; index < kParts; ++index) {
    const std::vector<Tensor> own = parts[index]->moments();
    for (size_t m = 0; m < moments.size(); ++m) {
      const ElementRange part = part_of(moments[m].numel(), index, kParts);
      for (int64_t k = part.begin; k < part.end; ++k)
        REQUIRE(own[m].data<float>()[k] == moments[m].data<float>()[k]);
    }
    REQUIRE(parts[index]->step_count(0) == 4);  // every part counts every step
  }
  CHECK_THROWS_WITH(one.step_part(3, 3), "AdamW.step_part: part 3 of 3 (0 <= index < count)");
}

TEST_CASE("Adam: step and step_part refuse a parameter that is not contiguous, naming themselves",
          "[optim][adam]") {
  Variable strided(Tensor::zeros({2, 3}).transpose(0, 1), true);  // [3, 2], strides (1, 3)
  Adam adam({strided}, {});
  strided.set_grad(Tensor::zeros({3, 2}));
  CHECK_THROWS_WITH(adam.step(), "Adam.step: parameter 0 is not contiguous");
  CHECK_THROWS_WITH(adam.step_part(1, 2), "Adam.step_part: parameter 0 is not contiguous");
}

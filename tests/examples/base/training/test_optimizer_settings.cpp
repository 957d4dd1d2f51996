// Tests for examples/base/training/optimizer_settings.h: the optimizer settings every family's
// RunConfig names alike, their ranges and the recipe they make.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "base/training/optimizer_settings.h"

using namespace atencion::examples;

namespace {
struct Run {  // the three fields, named as every family's RunConfig names them
  int64_t warmup_steps = 200;
  double lr_factor = 0.5;
  double clip_norm = 1.0;
};
}  // namespace

TEST_CASE("optimizer settings: warm-up of at least 1 step, a finite factor and clip above 0",
          "[trainer]") {
  CHECK_NOTHROW(check_optimizer_settings(Run{}));
  CHECK_THROWS_WITH(check_optimizer_settings(Run{.warmup_steps = 0}),
                    "'warmup_steps' is 0, not at least 1");
  CHECK_THROWS_WITH(check_optimizer_settings(Run{.lr_factor = 0}),
                    "'lr_factor' is 0.0, not a finite number above 0");
  const double infinity = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(check_optimizer_settings(Run{.lr_factor = infinity}), std::invalid_argument);
  CHECK_THROWS_WITH(check_optimizer_settings(Run{.clip_norm = -1}),
                    "'clip_norm' is -1.0, not a finite number above 0");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(check_optimizer_settings(Run{.clip_norm = nan}), std::invalid_argument);
}

TEST_CASE("optimizer settings: the recipe takes the run's schedule and clip, the family's Adam",
          "[trainer]") {
  const OptimizerRecipe recipe =
      optimizer_recipe(Run{.warmup_steps = 7, .lr_factor = 0.25, .clip_norm = 2}, 64,
                       {.beta2 = 0.98, .eps = 1e-9});
  CHECK(recipe.d_model == 64);
  CHECK(recipe.warmup_steps == 7);
  CHECK(recipe.lr_factor == 0.25);
  CHECK(recipe.clip_norm == 2.0);
  CHECK(recipe.adam.beta2 == 0.98);
  CHECK(recipe.adam.eps == 1e-9);
  CHECK(recipe.adam.beta1 == atencion::nn::AdamOptions{}.beta1);  // the rest as Adam's defaults
  CHECK(recipe.adam.lr == atencion::nn::AdamOptions{}.lr);
}

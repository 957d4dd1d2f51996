// examples/base/training/optimizer_settings.h — the optimizer settings every family's RunConfig
// names alike (warmup_steps, lr_factor, clip_norm): the ranges a run's config.json may hold
// them in, and the OptimizerRecipe they make with the model's width.
// Lesson: docs/11-training.md#adam
#pragma once

#include <cmath>
#include <cstdint>

#include "base/io/json_fields.h"
#include "base/training/trainer.h"
#include "nn/optim/adam.h"

namespace atencion::examples {

// Refuses (refuse_field) a warmup_steps below 1, and an lr_factor or clip_norm that is not a
// finite number above 0: the ranges every training command accepts. For read_run_section's
// range check.
template <typename Run>
void check_optimizer_settings(const Run& run) {
  if (run.warmup_steps < 1) refuse_field("warmup_steps", run.warmup_steps, "at least 1");
  if (!(run.lr_factor > 0 && std::isfinite(run.lr_factor)))
    refuse_field("lr_factor", run.lr_factor, "a finite number above 0");
  if (!(run.clip_norm > 0 && std::isfinite(run.clip_norm)))
    refuse_field("clip_norm", run.clip_norm, "a finite number above 0");
}

// Adam (its β2 and ε from `adam`: each family names its own) under the warm-up schedule of
// `d_model` and the run's warmup_steps and lr_factor, its gradients clipped at clip_norm.
template <typename Run>
OptimizerRecipe optimizer_recipe(const Run& run, int64_t d_model, const nn::AdamOptions& adam) {
  OptimizerRecipe recipe;
  recipe.d_model = d_model;
  recipe.warmup_steps = run.warmup_steps;
  recipe.lr_factor = run.lr_factor;
  recipe.clip_norm = run.clip_norm;
  recipe.adam = adam;
  return recipe;
}

}  // namespace atencion::examples

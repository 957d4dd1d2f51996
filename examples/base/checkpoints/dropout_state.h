// examples/base/checkpoints/dropout_state.h — the dropout generators' states, saved with a checkpoint
// so that a resumed run draws the same masks as one never interrupted.
// Lesson: docs/12-translation.md#checkpoints
//
// Each nn::Dropout owns a SplitMix64 generator (tensor/random.h) whose whole state is one
// 64-bit word; trainer.json keeps them by module name:
//   "generators": {"decoder.layers.0.dropout1": 11400714819323198485, ...}
#pragma once

#include <string>

#include "nlohmann/json.hpp"
#include "nn/module.h"

namespace atencion::examples {

nlohmann::json dropout_generator_states(const nn::Module& model);
// Sets every dropout generator of `model` from `states`. Throws std::runtime_error naming
// `file` when a dropout of the model has no state there, or a state names no dropout.
void restore_dropout_generator_states(const nn::Module& model, const nlohmann::json& states,
                                      const std::string& file);

}  // namespace atencion::examples

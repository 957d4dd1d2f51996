// examples/base/training/resume_state.h — what the Trainer takes from the checkpoint it resumes, each
// field checked against what a save can write.
// Lesson: docs/12-translation.md#checkpoints
//
// A checkpoint's manifest catches damage, not edits (or a checkpoint from before manifests):
// trainer.json with step -5 would name the next checkpoint step-00000000, "history" {} would
// stop the run at its first log line. So every value is refused, naming the file and the field,
// unless a save could have written it. (A family checks its own config.json: for the
// translator, read_run_config in examples/translate/train.cpp.)
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/data/batching.h"
#include "base/checkpoints/checkpoint.h"
#include "base/training/schedule_plan.h"
#include "nlohmann/json.hpp"
#include "nn/optim/adam.h"

namespace atencion::examples {

// No run reaches this many steps (a thousand a second for thirty years); step and epoch above
// it are refused.
constexpr int64_t kMostSteps = 1'000'000'000'000;

// trainer.json's state of the loop.
struct TrainerState {
  int64_t step = 0;
  BatchPosition position;  // epoch <= step, batch <= step (every batch is a step)
  double seconds = 0;      // training time so far
  nlohmann::json history = nlohmann::json::array();      // {step, loss, learning_rate, ...}
  nlohmann::json dev_history = nlohmann::json::array();  // {step, dev_loss}; older: none
  SchedulePlan schedule;  // of a run that decays to its end; else (and older) none: zeros
};
// Throws std::runtime_error "<file>: '<field>' is ..., not ..." for a value no save writes.
TrainerState read_trainer_state(const nlohmann::json& trainer, const std::string& file);

// The prefix, in optimizer.safetensors, of the weights a run trained when model.safetensors
// holds their moving average (OptimizerRecipe::ema_decay): "weights.<parameter name>".
constexpr const char* kTrainedWeights = "weights.";
// Those entries, by parameter name, taken out of `optimizer_state` (which keeps Adam's).
std::map<std::string, Tensor> take_trained_weights(NamedTensors& optimizer_state);

// Adam's moments and step counts from the checkpoint. Without optimizer.safetensors the
// resumed run would not continue exactly (Adam would restart from zero moments): refused unless
// `fresh_optimizer` (--fresh-optimizer), which starts Adam afresh whether or not a state is
// there. Errors name the file.
void load_optimizer_state(nn::Adam& optimizer, const CheckpointData& checkpoint,
                          bool fresh_optimizer);
// The same with Adam's part of the checkpoint's optimizer.safetensors in `state`.
void load_optimizer_state(nn::Adam& optimizer, const NamedTensors& state,
                          const CheckpointData& checkpoint, bool fresh_optimizer);

}  // namespace atencion::examples

// examples/base/training/resume_state.cpp — see resume_state.h.
#include "base/training/resume_state.h"

#include <filesystem>
#include <limits>
#include <stdexcept>

#include "base/io/json_fields.h"

namespace atencion::examples {
namespace {

constexpr double kLargest = std::numeric_limits<double>::max();

// One point of "history" (a log line) or "dev_history" (a checkpoint), at most at `step`.
void check_history(const nlohmann::json& points, const char* name, int64_t step,
                   bool dev_points) {
  int64_t previous = -1;
  for (size_t i = 0; i < points.size(); ++i) {
    const nlohmann::json& point = points[i];
    const std::string where = std::string(name) + "[" + std::to_string(i) + "]: ";
    try {
      const int64_t at = integer_field(point, "step", dev_points ? 0 : 1, step);
      if (at <= previous)
        throw std::invalid_argument("'step' is " + std::to_string(at) +
                                    ", not after the point before (" + std::to_string(previous) +
                                    ")");
      previous = at;
      if (dev_points) {
        number_field(point, "dev_loss", 0, kLargest);
        if (point.contains("seconds")) number_field(point, "seconds", 0, kLargest);  // older: none
      } else {
        number_field(point, "loss", 0, kLargest);
        number_field(point, "learning_rate", 0, kLargest);
        number_field(point, "tokens_per_second", 0, kLargest);
        number_field(point, "seconds", 0, kLargest);
      }
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(where + error.what());
    }
  }
}

}  // namespace

TrainerState read_trainer_state(const nlohmann::json& trainer, const std::string& file) {
  TrainerState state;
  try {
    state.step = integer_field(trainer, "step", 0, kMostSteps);
    state.position.epoch = integer_field(trainer, "epoch", 0, state.step);
    state.position.batch = integer_field(trainer, "batch", 0, state.step);
    state.seconds = number_field(trainer, "seconds", 0, kLargest);
    if (trainer.contains("dev_loss")) number_field(trainer, "dev_loss", 0, kLargest);
    state.history = array_field(trainer, "history");
    check_history(state.history, "history", state.step, false);
    if (trainer.contains("dev_history")) {  // older checkpoints have none
      state.dev_history = array_field(trainer, "dev_history");
      check_history(state.dev_history, "dev_history", state.step, true);
    }
    if (trainer.contains("schedule")) {  // only a run that decays to its end has one
      try {
        state.schedule = read_schedule_plan(trainer.at("schedule"));
      } catch (const std::invalid_argument& error) {
        throw std::invalid_argument(std::string("schedule: ") + error.what());
      }
    }
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(file + ": " + error.what());
  }
  return state;
}

std::map<std::string, Tensor> take_trained_weights(NamedTensors& optimizer_state) {
  const std::string prefix = kTrainedWeights;
  std::map<std::string, Tensor> trained;
  NamedTensors adam;
  for (auto& [name, tensor] : optimizer_state) {
    if (name.rfind(prefix, 0) == 0)
      trained.emplace(name.substr(prefix.size()), tensor);
    else
      adam.emplace_back(name, tensor);
  }
  optimizer_state = std::move(adam);
  return trained;
}

void load_optimizer_state(nn::Adam& optimizer, const CheckpointData& checkpoint,
                          bool fresh_optimizer) {
  load_optimizer_state(optimizer, checkpoint.optimizer, checkpoint, fresh_optimizer);
}

void load_optimizer_state(nn::Adam& optimizer, const NamedTensors& state,
                          const CheckpointData& checkpoint, bool fresh_optimizer) {
  const std::string file =
      (std::filesystem::path(checkpoint.directory) / "optimizer.safetensors").string();
  if (fresh_optimizer) return;  // Adam starts from zero moments, as asked
  if (checkpoint.optimizer.empty())
    throw std::runtime_error("train --resume: " + file + " is missing, so Adam would restart "
                             "from zero moments and the run would not continue exactly; pass "
                             "--fresh-optimizer to resume so anyway");
  try {
    optimizer.load_state_dict(state);
  } catch (const std::exception& error) {
    throw std::runtime_error(file + ": " + error.what());
  }
}

}  // namespace atencion::examples

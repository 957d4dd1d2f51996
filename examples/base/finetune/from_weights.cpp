// examples/base/finetune/from_weights.cpp — see from_weights.h.
// Lesson: docs/18-finetuning.md#starting-from-weights
#include "base/finetune/from_weights.h"

#include <algorithm>
#include <stdexcept>

#include "base/checkpoints/checkpoint.h"

namespace atencion::examples {

bool given_flag(const std::vector<std::string>& given, const std::string& flag) {
  return std::find(given.begin(), given.end(), flag) != given.end();
}

void refuse_contradicting_shape(const std::vector<ShapeFlag>& shapes,
                                const std::vector<std::string>& given, const std::string& where) {
  for (const ShapeFlag& shape : shapes)
    if (given_flag(given, shape.flag) && shape.requested != shape.weights)
      throw std::invalid_argument(shape.flag + " " + std::to_string(shape.requested) +
                                  ": the weights in " + where + " have " + shape.field + " " +
                                  std::to_string(shape.weights) + kShapeFromWeights);
}

std::vector<std::string> given_options(const CLI::App& command,
                                       const std::vector<std::string>& flags) {
  std::vector<std::string> given;
  for (const std::string& flag : flags)
    if (option_given(command, flag)) given.push_back(flag);
  return given;
}

void settle_fine_tune_flags(const CLI::App& command, bool from_weights,
                            const std::string& weights_flags, std::string& init_from,
                            int64_t& run_warmup, FineTuneSettings& settings) {
  for (const char* flag : {"--lora-rank", "--lora-alpha", "--lora-targets", "--lr", "--decay-steps"})
    if (!from_weights && option_given(command, flag))
      throw std::invalid_argument(std::string(flag) + ": a fine-tune's flag (start from weights "
                                  "with " + weights_flags + ")");
  if (!from_weights) return;
  if (!init_from.empty()) {
    const std::string checkpoint = resolve_checkpoint(init_from);
    if (!checkpoint.empty()) init_from = checkpoint;
  }
  if (option_given(command, "--warmup"))
    settings.warmup_steps = run_warmup;
  else
    run_warmup = settings.warmup_steps;
}

}  // namespace atencion::examples

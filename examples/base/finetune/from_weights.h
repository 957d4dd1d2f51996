// examples/base/finetune/from_weights.h — what every family's `train --init-from RUN` (and
// `--gpt2 DIR`, `--bert DIR`) shares: the weights fix the model's shape, so a flag that says
// otherwise is refused in one line, not ignored; and a run from weights is a fine-tune, whose
// schedule flags mean nothing in a run from the seed.
// Lesson: docs/18-finetuning.md#starting-from-weights
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/finetune/finetune_options.h"  // also names CLI::App (CLI11 not read here)

namespace atencion::examples {

// One size of the model: the flag that sets it, its name in config.json, the value the command
// line asked for and the one in the weights.
struct ShapeFlag {
  std::string flag;   // "--d-model"
  std::string field;  // "d_model"
  int64_t requested = 0;
  int64_t weights = 0;
};

// Whether `flag` is among `given` (the model flags named on the command line).
bool given_flag(const std::vector<std::string>& given, const std::string& flag);

// Throws std::invalid_argument, for the first flag of `shapes` that is in `given` with a value
// other than the weights':
//   "--d-model 32: the weights in runs/base/step-00000010 have d_model 16 (a run from weights
//    takes its shape and tokenizer from them)"
void refuse_contradicting_shape(const std::vector<ShapeFlag>& shapes,
                                const std::vector<std::string>& given, const std::string& where);

// The same sentence's ending, for a family's own refusals (the tokenizer, the vocabulary).
inline constexpr const char* kShapeFromWeights =
    " (a run from weights takes its shape and tokenizer from them)";

// The names of the options among `flags` that `command` was given.
std::vector<std::string> given_options(const CLI::App& command,
                                       const std::vector<std::string>& flags);

// A train command's fine-tune flags, once parsed. `from_weights`: --init-from or the family's
// published weights given. Outside a run from weights, --lora-rank, --lora-alpha,
// --lora-targets, --lr or --decay-steps (those `command` has) is refused in one line:
//   "--lr: a fine-tune's flag (start from weights with --init-from DIR or --gpt2 DIR)"
// (`weights_flags`: "--init-from DIR or --gpt2 DIR"). In one: `init_from` becomes the checkpoint
// it stands for (resolve_checkpoint: not its run's "latest", which moves if that run trains on),
// and the command's --warmup (`run_warmup`, the pre-training schedule's flag) serves the
// fine-tune schedule: given, it is the fine-tune's warm-up; not given, the fine-tune's default
// is written back into `run_warmup` (so config.json's "run" says what was used).
void settle_fine_tune_flags(const CLI::App& command, bool from_weights,
                            const std::string& weights_flags, std::string& init_from,
                            int64_t& run_warmup, FineTuneSettings& settings);

}  // namespace atencion::examples

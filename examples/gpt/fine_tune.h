// examples/gpt/fine_tune.h — a GPT fine-tune on the shared base (examples/base/finetune/): the
// weights it starts from, LoRA's adapters on them (--lora-rank, --lora-targets q_proj,v_proj),
// the checkpoint that keeps only the adapters with the base's checksum, and merge.
// Lesson: docs/18-finetuning.md#the-gpt-instruction-fine-tuning
#pragma once

#include <string>

#include "base/finetune/finetune_options.h"
#include "gpt/language_model.h"

namespace atencion::examples::gpt {

// Where a fine-tune's base comes from: a run of ours (--init-from) or GPT-2's files (--gpt2).
struct BaseSource {
  std::string init_from;
  std::string gpt2_dir;
  const std::string& where() const { return gpt2_dir.empty() ? init_from : gpt2_dir; }
};

// The started fine-tune: `start` (its base weights, loaded) gets its record (config.json's
// "finetune" and "base" sections: the settings and the base's checksum) and, with LoRA, its
// adapters, A drawn from `seed` (the base frozen).
void begin_fine_tune(LanguageModel& start, const BaseSource& base, const FineTuneSettings& settings,
                     uint64_t seed);

// A LoRA fine-tune's checkpoint (only its adapters): the base loaded from where the run started
// (config.json's "run": "init_from" or "gpt2"), refused in one line when its weights are not the
// ones the adapters were trained on (check_same_base), then adapted and the adapters loaded.
LanguageModel load_adapted(const CheckpointData& checkpoint, const FineTuneSettings& settings,
                           const std::string& where);

// The model with its dropout set to `dropout` (the weights kept): --dropout on a run from weights.
void set_dropout(LanguageModel& language_model, double dropout);

// `merge`: the adapters folded into the weights (W ← W + (α/r)·B A, nn::merge_lora), a plain
// checkpoint written to `out_dir` (its step-N, as a run of ours: --model and --init-from read it).
// Returns the checkpoint's directory.
std::string merge_fine_tune(const std::string& model_dir, const std::string& out_dir);

}  // namespace atencion::examples::gpt

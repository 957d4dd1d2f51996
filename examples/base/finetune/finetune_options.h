// examples/base/finetune/finetune_options.h — what every family's fine-tune takes on its command
// line: LoRA's rank, α and target layers, and the fine-tune schedule's peak, warm-up and decay.
// Lesson: docs/18-finetuning.md
//
//   --lora-rank 8 --lora-alpha 16 --lora-targets q_proj,v_proj     adapters (nn/lora.h) on the
//       Linear layers whose names end so, in the family's own names; rank 0 (the default) is a
//       full fine-tune: every weight trained
//   --lr 1e-4 --warmup 30 --decay-steps 1000                       nn::FineTuneSchedule
//
// The settings are saved as config.json's "finetune" and read back (read_finetune_settings)
// when adapters are loaded: the same rank, α and targets rebuild the same adapters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "nn/lora.h"
#include "nn/module.h"
#include "nn/optim/schedule.h"

// Only named here: CLI11's header, which defines its classes' functions inline and costs about
// 10 s of CPU a file, is read by the files that add options (finetune_options.cpp and the
// programs' commands), not by every file that includes adapters.h or a family's fine-tune.
namespace CLI {
class App;
}

namespace atencion::examples {

struct FineTuneSettings {
  int64_t lora_rank = 0;                  // r; 0 = no adapters: a full fine-tune
  double lora_alpha = 16;                 // α: the update is scaled by α / r
  std::vector<std::string> lora_targets;  // last name parts of the Linear layers to adapt
  double peak_lr = 1e-4;                  // the schedule's peak (pre-training's is higher)
  int64_t warmup_steps = 30;
  int64_t decay_steps = 1000;

  bool uses_lora() const { return lora_rank > 0; }
  nn::FineTuneSchedule schedule() const;
  nn::LoRAOptions lora() const;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FineTuneSettings, lora_rank, lora_alpha, lora_targets, peak_lr,
                                   warmup_steps, decay_steps)

// True when `command` has the option `flag` (e.g. "--warmup") and its line gave it; compiled
// with CLI11 here, so that the files that only ask this need not read CLI11's header.
bool option_given(const CLI::App& command, const std::string& flag);

// Adds --lora-rank, --lora-alpha, --lora-targets (comma-separated), --lr, --warmup and
// --decay-steps to `command`, each a field of `settings` (whose values are the defaults shown:
// a family sets its own lora_targets first). `warmup_flag` false leaves --warmup out, for a
// command that has its own (the GPT's train, whose --warmup serves both schedules).
void add_finetune_options(CLI::App* command, FineTuneSettings& settings, bool warmup_flag = true);
// The schedule's flags alone (--lr, --warmup, --decay-steps): a fine-tune without adapters (the
// BERT's `train --bert`, which continues the masked-LM pre-training of every weight).
void add_schedule_options(CLI::App* command, FineTuneSettings& settings, bool warmup_flag = true);

// config.json's "finetune" section, each field checked as the command line checks it; one line
// naming `file` (std::runtime_error) when it is missing or out of range.
FineTuneSettings read_finetune_settings(const nlohmann::json& config, const std::string& file);

// With settings.uses_lora(): freezes `model` and adds the adapters (nn::add_lora), each A drawn
// from `seed`; returns the adapted layers' names. Without: changes nothing, returns none.
std::vector<std::string> apply_lora(nn::Module& model, const FineTuneSettings& settings,
                                    uint64_t seed);

// "trainable: 1378 of 14950 parameters (9.22%); Adam's moments 0.01 MB": the line every
// fine-tune prints (the moments: two float32 numbers for each trainable parameter).
std::string trainable_line(const nn::Module& model);

}  // namespace atencion::examples

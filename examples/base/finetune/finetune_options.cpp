// examples/base/finetune/finetune_options.cpp — Lesson: docs/18-finetuning.md
#include "base/finetune/finetune_options.h"

#include <cstdio>
#include <stdexcept>

#include "CLI/CLI.hpp"
#include "base/cli/validators.h"
#include "base/io/json_fields.h"
#include "tensor/random.h"

namespace atencion::examples {

nn::FineTuneSchedule FineTuneSettings::schedule() const {
  return {.peak = peak_lr, .warmup_steps = warmup_steps, .decay_steps = decay_steps};
}

nn::LoRAOptions FineTuneSettings::lora() const {
  return {.rank = lora_rank, .alpha = lora_alpha, .targets = lora_targets};
}

void add_finetune_options(CLI::App* command, FineTuneSettings& settings, bool warmup_flag) {
  command->add_option("--lora-rank", settings.lora_rank,
                      "rank r of the LoRA adapters; 0 trains every weight (a full fine-tune)")
      ->capture_default_str()->check(at_least(0));
  command->add_option("--lora-alpha", settings.lora_alpha, "LoRA's α: the update is scaled by α/r")
      ->capture_default_str()->check(at_least(0, true));
  command->add_option("--lora-targets", settings.lora_targets,
                      "the Linear layers to adapt, by the last part of their names")
      ->delimiter(',')->capture_default_str();
  add_schedule_options(command, settings, warmup_flag);
}

void add_schedule_options(CLI::App* command, FineTuneSettings& settings, bool warmup_flag) {
  command->add_option("--lr", settings.peak_lr, "the fine-tune schedule's peak learning rate")
      ->capture_default_str()->check(at_least(0, true));
  if (warmup_flag)
    command->add_option("--warmup", settings.warmup_steps, "warm-up steps")
        ->capture_default_str()->check(at_least(1));
  command->add_option("--decay-steps", settings.decay_steps,
                      "the step where the linear decay reaches a tenth of the peak")
      ->capture_default_str()->check(at_least(2));
}

FineTuneSettings read_finetune_settings(const nlohmann::json& config, const std::string& file) {
  try {
    if (!config.contains("finetune")) throw std::invalid_argument("no \"finetune\" section");
    const auto settings = read_exactly<FineTuneSettings>(config.at("finetune"));
    if (settings.lora_rank < 0) refuse_field("lora_rank", settings.lora_rank, "at least 0");
    if (settings.uses_lora() && settings.lora_targets.empty())
      refuse_field("lora_targets", "[]", "at least one layer name");
    if (!(settings.lora_alpha > 0)) refuse_field("lora_alpha", settings.lora_alpha, "above 0");
    settings.schedule().learning_rate(1);  // throws naming the schedule's fields when out of range
    return settings;
  } catch (const std::exception& error) {
    throw std::runtime_error(file + ": finetune: " + error.what());
  }
}

std::vector<std::string> apply_lora(nn::Module& model, const FineTuneSettings& settings,
                                    uint64_t seed) {
  if (!settings.uses_lora()) return {};
  Generator generator(seed);
  return nn::add_lora(model, settings.lora(), generator);
}

std::string trainable_line(const nn::Module& model) {
  int64_t trainable = 0;
  for (const auto& [name, parameter] : nn::trainable_parameters(model))
    trainable += parameter.value().numel();
  const int64_t total = model.parameter_count();
  char line[200];
  // Adam keeps two moments (m and v) for every parameter it updates, in float32.
  std::snprintf(line, sizeof line,
                "trainable: %lld of %lld parameters (%.2f%%); Adam's moments %.2f MB",
                static_cast<long long>(trainable), static_cast<long long>(total),
                total > 0 ? 100.0 * static_cast<double>(trainable) / static_cast<double>(total)
                          : 0.0,
                2.0 * 4.0 * static_cast<double>(trainable) / 1e6);
  return line;
}

bool option_given(const CLI::App& command, const std::string& flag) {
  const CLI::Option* option = command.get_option_no_throw(flag);
  return option != nullptr && option->count() > 0;
}

}  // namespace atencion::examples

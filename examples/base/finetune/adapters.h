// examples/base/finetune/adapters.h — what a fine-tune's checkpoint holds, and the base it
// belongs to.
// Lesson: docs/18-finetuning.md#the-adapter-checkpoint
//
// A full fine-tune saves the whole model, as pre-training does. A LoRA fine-tune saves only what
// it trained: the adapters (every lora_A and lora_B) and the task head, a few hundred kB where
// the model is hundreds of MB; the checkpoint is an ordinary one (base/checkpoints/checkpoint.h:
// its own manifest.json with each file's CRC-32C), whose config.json adds
//
//   "finetune": {"lora_rank": 8, "lora_alpha": 16, "lora_targets": ["q_proj", "v_proj"], ...}
//   "base":     {"checksum": "1f0c9a3e", "parameters": 4214016, "source": "runs/bert"}
//
// "checksum" is the CRC-32C of the base model's weights (weights_checksum): adapters learned on
// one model mean nothing on another, so loading them onto a base whose weights differ is refused
// in one line (check_same_base) instead of silently giving nonsense.
#pragma once

#include <string>

#include "base/finetune/finetune_options.h"
#include "nlohmann/json.hpp"
#include "nn/module.h"
#include "tensor/safetensors.h"

namespace atencion::examples {

// CRC-32C (base/checkpoints/checksum.h) of `model`'s weights: each tensor's name, shape and
// float32 values, in state_dict order. The same weights give the same checksum whichever file
// they came from (a run of ours or Hugging Face's layout).
std::string weights_checksum(const nn::Module& model);

// config.json's "base" section for a fine-tune of `base` (before its adapters are added), read
// from `source` (the --bert/--gpt2 directory or the --init-from run).
nlohmann::json base_record(const nn::Module& base, const std::string& source);

// Refuses, in one line naming `where`, a base whose weights are not the ones `record`
// (base_record's) was made from:
//   "<where>: these adapters were trained on base 1f0c9a3e (runs/bert), not on this one
//    (7d41b2c0, from runs/other)"
void check_same_base(const nlohmann::json& record, const nn::Module& base,
                     const std::string& base_source, const std::string& where);

// What a fine-tune's checkpoint keeps of `model`: with LoRA, the trainable tensors only (the
// adapters and the head); without, the whole state_dict.
NamedTensors fine_tuned_tensors(const nn::Module& model, const FineTuneSettings& settings);

// The reverse, into a model rebuilt as it was trained (the base loaded, apply_lora done, the
// head made trainable): with LoRA, exactly the trainable tensors must be there (a missing,
// extra or reshaped one is refused naming it and `where`); without, the whole state_dict.
void load_fine_tuned_tensors(nn::Module& model, const NamedTensors& tensors,
                             const FineTuneSettings& settings, const std::string& where);

}  // namespace atencion::examples

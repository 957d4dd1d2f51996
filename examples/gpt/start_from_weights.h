// examples/gpt/start_from_weights.h — a run that starts from weights instead of from noise:
// `train --init-from DIR` (a run of ours, or one of its step-N) or `train --gpt2 DIR` (GPT-2's
// published files, tokenizer included).
// Lesson: docs/18-finetuning.md#the-gpt-instruction-fine-tuning
//
// The weights fix the model's shape (context, d_model, heads, layers, vocab) and its tokenizer:
// a flag that says otherwise is refused in one line, not ignored. --dropout is a training setting,
// not the weights': given, it replaces theirs.
#pragma once

#include <string>
#include <vector>

#include "gpt/gpt.h"
#include "gpt/language_model.h"

namespace atencion::examples::gpt {

// `requested`: the model flags' values; `given`: the names of those on the command line
// (--context, --d-model, --heads, --layers, --dropout, --tokenizer, --vocab). Throws
// std::invalid_argument "<flag> <value>: the weights in <dir> have <field> <value> ...".
LanguageModel start_from_weights(const std::string& init_from, const std::string& gpt2_dir,
                                 const GPTConfig& requested, const std::string& tokenizer,
                                 const std::vector<std::string>& given);

}  // namespace atencion::examples::gpt

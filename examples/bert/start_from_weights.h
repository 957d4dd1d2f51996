// examples/bert/start_from_weights.h — masked-LM pre-training that starts from weights instead
// of from noise: `train --init-from RUN` (a run of ours, or one of its step-N) or `train --bert
// DIR` (a directory as Hugging Face publishes BERT, its WordPiece vocabulary included).
// Lesson: docs/18-finetuning.md#starting-from-weights
//
// The weights fix the model's shape (hidden, heads, layers, intermediate, max_positions) and its
// pieces: a flag that says otherwise is refused in one line (base/finetune/from_weights.h), not
// ignored. --dropout is a training setting, not the weights': given, it replaces theirs.
#pragma once

#include <string>
#include <vector>

#include "base/finetune/finetune_options.h"
#include "bert/masked_lm.h"

namespace atencion::examples::bert {

// The weights of `init_from` (a run or checkpoint) or `bert_dir` (Hugging Face's layout), checked
// against `requested` (the model flags' values) for the flags named in `given` (--hidden,
// --heads, --layers, --intermediate, --max-positions, --dropout, --vocab), then begun as a
// fine-tune: its record (config.json's "finetune", with `settings`, and "base", the weights'
// checksum). A BertModel directory (no masked-LM head) is refused in one line.
MaskedLanguageModel start_from_weights(const std::string& init_from, const std::string& bert_dir,
                                       const BertConfig& requested,
                                       const std::vector<std::string>& given,
                                       const FineTuneSettings& settings);

}  // namespace atencion::examples::bert

// examples/gpt/language_model.h — a GPT with its tokenizer: what every command loads.
// Lesson: docs/15-gpt.md
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/checkpoints/checkpoint.h"
#include "gpt/gpt.h"
#include "gpt/text_data.h"
#include "gpt/text_tokenizer.h"

namespace atencion::examples::gpt {

struct LanguageModel {
  std::shared_ptr<GPT> model;
  std::shared_ptr<const TextTokenizer> tokenizer;  // one of its kinds (text_tokenizer.h)
  // A fine-tune's record (fine_tune.h): config.json's "finetune" and "base" sections, as
  // {"finetune": ..., "base": ...}; null for a model trained from its seed. With LoRA, its
  // checkpoint keeps only the adapters, and loading one loads the base first.
  nlohmann::json finetune;

  // A checkpoint of atencion-gpt train (a run directory or one step-N), in eval mode.
  static LanguageModel from_checkpoint(const CheckpointData& checkpoint);
  // config.json, weights and tokenizer file (the trainer adds the rest).
  CheckpointData to_checkpoint() const;

  // Summed cross-entropy (nats) and predictions (targets other than nn::kIgnoreIndex) over
  // `batches`, in eval mode, no graph;
  // `after_batch`, when given, sees the number of batches scored and the sum so far.
  struct Score {
    double nats = 0;
    int64_t predictions = 0;
  };
  Score score(const std::vector<TokenBatch>& batches,
              const std::function<void(size_t, const Score&)>& after_batch = {}) const;
};

// Where a model comes from on the command line: --model DIR (a checkpoint) or --gpt2 DIR.
LanguageModel load_language_model(const std::string& model_dir, const std::string& gpt2_dir);

// loss = nats / predictions; perplexity = e^loss; bits per byte = nats / (bytes · ln 2).
struct TextMeasures {
  double loss = 0, perplexity = 0, bits_per_byte = 0;
};
TextMeasures measures(const LanguageModel::Score& score, int64_t bytes);

}  // namespace atencion::examples::gpt

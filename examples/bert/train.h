// examples/bert/train.h — masked-LM pre-training: the text, the pieces and the model, given to
// the shared training loop (examples/base/training/trainer.h).
// Lesson: docs/16-bert.md#train-one
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/finetune/finetune_options.h"
#include "base/training/trainer.h"
#include "nlohmann/json.hpp"
#include "bert/bert.h"
#include "nn/distributed.h"

namespace atencion::examples::bert {

// The settings that define a run, saved as config.json's "run" (the JSON keys are the names).
struct RunConfig {
  std::string text_path;          // "" = the Spanish side of the shipped Tatoeba pairs
  // Where the weights start ("" and "": from the seed): a run of ours, or Hugging Face's files
  // (start_from_weights.h).
  std::string init_from;
  std::string bert_dir;
  uint64_t split_seed = 20181011;  // names the held-out split (BERT's arXiv date)
  int64_t vocab_size = 8000;      // SentencePiece pieces (an upper bound), [MASK] added
  int64_t max_tokens = 2048;      // padded pieces per batch
  int64_t warmup_steps = 200;
  double lr_factor = 0.5;          // the warm-up schedule's factor
  double clip_norm = 1.0;
  uint64_t seed = 1;              // weights, dropout, batch order and masking
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunConfig, text_path, init_from, bert_dir, split_seed,
                                   vocab_size, max_tokens, warmup_steps, lr_factor, clip_norm, seed)

// The default model: 4 layers of 256 with 4 heads, trained in minutes on a CPU (BERT-base is
// 12 layers of 768 with 12 heads).
inline BertConfig default_model() {
  BertConfig model;
  model.hidden = 256;
  model.heads = 4;
  model.layers = 4;
  model.intermediate = 1024;
  model.max_positions = 128;
  model.dropout = 0.1;
  return model;  // the vocabulary size comes from the pieces
}

struct TrainOptions {
  RunConfig run;
  BertConfig model = default_model();
  // The model flags given on the command line (--hidden, --heads, --layers, --intermediate,
  // --max-positions, --dropout, --vocab): a run from weights refuses those its weights
  // contradict, and takes --dropout.
  std::vector<std::string> model_flags;
  // A run from weights is a fine-tune (docs/18-finetuning.md#the-schedule): the fine-tune
  // schedule (--lr, --warmup, --decay-steps) instead of pre-training's, every weight trained.
  FineTuneSettings finetune;
  TrainerOptions trainer = [] {
    TrainerOptions trainer;
    trainer.out_dir = "runs/bert";
    return trainer;
  }();
};

// The seed of the held-out split's masking (eval's default too): fixed, so every checkpoint
// and every run is scored on the same positions.
constexpr uint64_t kHeldOutMaskingSeed = 15;

// Trains and writes checkpoints into options.trainer.out_dir; prints the held-out masked-token
// accuracy and loss at the end. Returns the last checkpoint's directory.
std::string train(const TrainOptions& options, nn::distributed::Communicator& communicator);

RunConfig read_run_config(const nlohmann::json& config, const std::string& file);

}  // namespace atencion::examples::bert

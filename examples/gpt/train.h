// examples/gpt/train.h — training the GPT: its text, tokens and model, given to the shared
// training loop (examples/base/training/trainer.h).
// Lesson: docs/15-gpt.md#training
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/finetune/finetune_options.h"
#include "base/training/trainer.h"
#include "gpt/gpt.h"
#include "nlohmann/json.hpp"
#include "nn/distributed.h"

namespace atencion::examples::gpt {

// The settings that define a run, saved as config.json's "run" (the JSON keys are the names).
struct RunConfig {
  // "text": a language model of --text; "translate": the Spanish–English pairs as instructions,
  // the loss on the answers only (instructions.h, docs/18-finetuning.md).
  std::string task = "text";
  std::string text_path;            // "" = the English side of the shipped Tatoeba pairs (text),
                                    // or the pairs themselves (translate: a TSV es<TAB>en)
  int64_t max_words = 10;           // translate: pairs of at most this many words a side
  // Where the weights start ("" and "": from the seed): a run of ours, or GPT-2's files.
  std::string init_from;
  std::string gpt2;
  std::string tokenizer = "bytes";  // or "sentencepiece" (trained on the training split)
  int64_t vocab_size = 2000;        // sentencepiece only (an upper bound)
  uint64_t split_seed = 20180513;   // the default text's sentence order, hence the split
  int64_t batch_size = 16;          // windows of `context` tokens a step
  int64_t eval_tokens = 65536;      // held-out predictions scored at each checkpoint (0: all)
  // A warm-up to a peak of lr_factor / √(d_model · warmup_steps) = 1.6e-3 at d_model 128,
  // then the schedule's 1/√step decay (nn/optim/schedule.h).
  int64_t warmup_steps = 200;
  double lr_factor = 0.25;
  double clip_norm = 1.0;
  uint64_t seed = 1;                // weights, dropout and batch order
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunConfig, task, text_path, max_words, init_from, gpt2,
                                   tokenizer, vocab_size, split_seed,
                                   batch_size, eval_tokens, warmup_steps, lr_factor, clip_norm,
                                   seed)

// config.json's "run", each field in the range the command line accepts; throws
// std::runtime_error "<file>: run: '<field>' is ..., not ...".
RunConfig read_run_config(const nlohmann::json& config, const std::string& file);

// The text a run learns from: --text's file, or the default English side.
std::string load_text(const RunConfig& run);

inline TrainerOptions default_session() {
  TrainerOptions trainer;
  trainer.out_dir = "runs/gpt";
  trainer.checkpoint_every = 250;
  return trainer;
}

struct TrainOptions {
  RunConfig run;
  GPTConfig model;  // vocab comes from the tokenizer
  // The model and tokenizer flags given on the command line (--context, --d-model, --heads,
  // --layers, --dropout, --tokenizer, --vocab): a run from weights refuses those its weights
  // contradict, and takes --dropout.
  std::vector<std::string> model_flags;
  // A run from weights is a fine-tune (docs/18-finetuning.md): the fine-tune schedule and, with
  // --lora-rank, LoRA's adapters on these layers (the GPT's names: q_proj, k_proj, v_proj,
  // out_proj, linear1, linear2).
  FineTuneSettings finetune = {.lora_targets = {"q_proj", "v_proj"}};
  TrainerOptions trainer = default_session();
};

// Trains and writes checkpoints into options.trainer.out_dir, on one process or, under mpirun,
// on N (docs/13-data-parallel.md); returns the last checkpoint's directory. Everything a translator's run guarantees (the lock, exact --resume,
// the NaN guard, checkpoints with a "best") comes from the shared Trainer.
std::string train(const TrainOptions& options, nn::distributed::Communicator& communicator);

}  // namespace atencion::examples::gpt

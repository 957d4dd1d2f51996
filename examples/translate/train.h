// examples/translate/train.h — training the translator: data, tokenizers, model, loop, saves.
// Lesson: docs/11-training.md, docs/12-translation.md
#pragma once

#include <cstdint>
#include <string>

#include "nlohmann/json.hpp"
#include "nn/distributed.h"
#include "nn/transformer.h"

namespace atencion::translate {

struct TrainOptions {
  std::string data_path;            // "" = the shipped Tatoeba pairs
  std::string out_dir = "runs/spa-eng";
  int64_t max_words = 10;           // keep pairs whose sides have at most this many words
  uint64_t split_seed = 20180513;   // names the train/dev/test split
  int64_t vocab_size = 8000;        // per language (an upper bound)
  nn::TransformerConfig model;      // vocab sizes are filled in from the tokenizers
  int64_t max_tokens = 2048;        // per batch: B · max(S, T); ~500 steps an epoch (≤ 10 words)
  double label_smoothing = 0.1;
  // A 10-minute run makes ~800 steps: a short warm-up, and a factor that holds the peak rate
  // (factor / √(d_model · warmup) = 2.2e-3 at d_model 256) where a post-norm model stays stable.
  int64_t warmup_steps = 200;
  double lr_factor = 0.5;           // the warm-up schedule's factor
  double clip_norm = 1.0;
  double minutes = 0;               // time budget; 0 = none
  int64_t epochs = 0;               // 0 = until the time budget ends
  int64_t steps = 0;                // stop at this step (resumed steps count); 0 = no limit
  int64_t checkpoint_every = 500;   // steps; a checkpoint is also written at the end
  int64_t log_every = 50;           // steps between log lines / history points
  bool resume = false;              // continue from out_dir's latest checkpoint
  bool overwrite = false;           // replace the run out_dir holds (else a fresh run refuses)
  uint64_t seed = 1;                // weights, dropout and batch order
};

// The settings that define the run (config.json's "run"; reused by --resume and eval).
nlohmann::json run_to_json(const TrainOptions& options);

// Trains and writes checkpoints into options.out_dir; returns the last checkpoint's directory.
// Holds out_dir's lock throughout (run_directory.h). Stops with std::runtime_error at the first
// non-finite loss, gradient norm, dev loss or weight, naming the step and the last good
// checkpoint; each checkpoint records its dev loss, and "best" names the lowest.
// `communicator` is this process's (main makes it): one process, or one of mpirun's N.
std::string train(const TrainOptions& options, nn::distributed::Communicator& communicator);

}  // namespace atencion::translate

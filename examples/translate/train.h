// examples/translate/train.h — training the translator: its data, tokenizers and model, given to
// the shared training loop (examples/base/training/trainer.h).
// Lesson: docs/11-training.md, docs/12-translation.md
#pragma once

#include <cstdint>
#include <string>

#include "base/training/trainer.h"
#include "nlohmann/json.hpp"
#include "nn/distributed.h"
#include "nn/transformer.h"
#include "translate/model_defaults.h"

namespace atencion::examples::translate {

// The settings that define a run, saved as config.json's "run" and read back by --resume and
// eval: the one definition of their names (the JSON keys are the field names).
struct RunConfig {
  std::string data_path;            // "" = the shipped Tatoeba pairs
  int64_t max_words = 10;           // keep pairs whose sides have at most this many words
  uint64_t split_seed = 20180513;   // names the train/dev/test split
  // Per language (an upper bound). 4,000 rather than 8,000: a step is a quarter faster (the
  // output layer and its softmax are half as wide) and each piece is seen twice as often
  // (docs/11-training.md#a-recipe-for-nine-minutes).
  int64_t vocab_size = 4000;
  int64_t max_tokens = 2048;        // per batch: B · max(S, T); ~500 steps an epoch (≤ 10 words)
  double label_smoothing = 0.1;
  // A 10-minute run makes ~800 steps: a short warm-up, and a factor that holds the peak rate
  // (factor / √(d_model · warmup) = 2.2e-3 at d_model 256) where a post-norm model stays stable.
  int64_t warmup_steps = 200;
  double lr_factor = 0.5;           // the warm-up schedule's factor
  // After the peak: "inverse-sqrt" (the paper's 1/√step, nn::WarmupSchedule) or "linear" (a
  // straight line down to lr_floor · peak at the run's last step, nn::decay_to_end).
  // "linear" by default: a run limited by minutes ends annealed (+3 BLEU on a 9-minute run).
  std::string schedule = "linear";
  double lr_floor = 0;              // with "linear": the rate at the last step, a share of the peak
  // Above 0: the decay of a moving average of the weights (nn/optim/ema.h), which the dev loss
  // and the checkpoint's model are; 0: none.
  double ema = 0;
  double clip_norm = 1.0;
  uint64_t seed = 1;                // weights, dropout and batch order
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunConfig, data_path, max_words, split_seed, vocab_size,
                                   max_tokens, label_smoothing, warmup_steps, lr_factor, schedule,
                                   lr_floor, ema, clip_norm, seed)

// The schedules RunConfig::schedule names.
inline constexpr const char* kSchedules[] = {"inverse-sqrt", "linear"};

// config.json's "run" section, each field as RunConfig defines it (16.5 or -1 in an integer
// field refused) and in the range the command line accepts; throws std::runtime_error
// "<file>: run: '<field>' is ..., not ...". A run saved before schedules and averages were
// chosen (no "schedule", "lr_floor" or "ema") reads as it trained: "inverse-sqrt", no average.
RunConfig read_run_config(const nlohmann::json& config, const std::string& file);
// config.json as a run saved before schedules and averages were chosen trained: its "run"
// without "schedule", "lr_floor" or "ema" given "inverse-sqrt", 0 and 0; the rest as it is.
nlohmann::json with_schedule_of_older_runs(nlohmann::json config);

// How long and how often, by default: into runs/spa-eng, with a dev evaluation (loss and
// BLEU) every 200 steps: some 8 points of the curves in a 9-minute run (~1,600 steps).
inline TrainerOptions default_session() {
  TrainerOptions trainer;
  trainer.out_dir = "runs/spa-eng";
  trainer.eval_every = 200;
  return trainer;
}

struct TrainOptions {
  RunConfig run;
  nn::TransformerConfig model = default_model();  // vocab sizes come from the tokenizers
  TrainerOptions trainer = default_session();
};

// Trains and writes checkpoints into options.trainer.out_dir, over the processes of
// `communicator` (one, or mpirun's N); returns the last checkpoint's directory. Holds out_dir's lock throughout (run_directory.h). Stops with std::runtime_error at
// the first non-finite loss, gradient norm, dev loss or weight, naming the step and the last
// good checkpoint; each checkpoint records its dev loss, and "best" names the lowest.
std::string train(const TrainOptions& options, nn::distributed::Communicator& communicator);

}  // namespace atencion::examples::translate

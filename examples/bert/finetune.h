// examples/bert/finetune.h — fine-tuning a BERT to classify sentences or sentence pairs, with
// or without LoRA, on the shared training loop (base/training/trainer.h).
// Lesson: docs/18-finetuning.md
//
// A fine-tune starts from weights: --bert DIR (Hugging Face's files) or --init-from RUN (a run
// of `atencion-bert train`); --random-weights keeps that base's shape and tokenizer but draws
// fresh weights (the comparison that shows what pre-training gave). Its checkpoint holds the
// classifier (or, with LoRA, the adapters and the head only: base/finetune/adapters.h) and
// names its base, which classify loads again.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/checkpoints/checkpoint.h"
#include "base/finetune/finetune_options.h"
#include "base/training/trainer.h"
#include "bert/classifier.h"
#include "bert/masked_lm.h"
#include "bert/pair_task.h"
#include "nlohmann/json.hpp"
#include "nn/distributed.h"

namespace atencion::examples::bert {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PairTaskOptions, seed, train_pairs, held_out_pairs)

// What defines a fine-tune, saved as config.json's "run".
struct ClassifierRun {
  std::string bert_dir;     // the base: a directory in Hugging Face's layout, or
  std::string init_from;    // a run (or checkpoint) of `atencion-bert train`
  bool random_weights = false;  // the base's config and tokenizer, fresh weights
  std::string data_path;        // label<TAB>text[<TAB>text]; "" = the translation task
  std::string held_out_path;    // "" = the translation task's held-out split, or 1 in 20 lines
  PairTaskOptions pair_task;
  int64_t max_tokens = 2048;    // padded pieces per batch
  double clip_norm = 1.0;
  uint64_t seed = 1;            // head, adapters, dropout and batch order
  std::vector<std::string> labels;  // the classes, in order (filled in from the data)
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClassifierRun, bert_dir, init_from, random_weights, data_path,
                                   held_out_path, pair_task, max_tokens, clip_norm, seed, labels)
// config.json's "run", each field checked (one line naming `file` otherwise).
ClassifierRun read_classifier_run(const nlohmann::json& config, const std::string& file);

// Sizes a user may state to check the weights are what they think: each must match the base's
// config (a contradiction is refused in one line); 0 = not stated.
struct ExpectedShape {
  int64_t hidden = 0, heads = 0, layers = 0;
};

struct FineTuneOptions {
  ClassifierRun run;
  FineTuneSettings finetune = [] {
    FineTuneSettings settings;
    settings.lora_targets = {"q_proj", "v_proj"};  // PEFT's default for BERT: query and value
    return settings;
  }();
  ExpectedShape expected;
  TrainerOptions trainer = [] {
    TrainerOptions trainer;
    trainer.out_dir = "runs/bert-classifier";
    return trainer;
  }();
};

// A classifier with its pieces and classes, as fine-tune trains it and classify reads it.
struct Classifier {
  BertConfig config;
  std::shared_ptr<BertClassifier> model;
  std::shared_ptr<const Pieces> pieces;
  std::vector<std::string> labels;
  FineTuneSettings finetune;
};

// The base a run names (--bert, --init-from, --random-weights), in eval mode, with where it
// came from ("runs/bert", "random weights of runs/bert").
struct LoadedBase {
  MaskedLanguageModel lm;
  std::string source;
};
LoadedBase load_base(const ClassifierRun& run);

// A fresh classifier over `base`: pooler and head drawn from run.seed, the adapters (if
// settings ask for them) from a seed of their own; the base frozen under LoRA, the head trainable.
Classifier make_classifier(LoadedBase base, const ClassifierRun& run,
                           const FineTuneSettings& settings);

// A fine-tune's checkpoint as a classifier: its base loaded again (or `base_override`'s, which
// must be the same weights: refused in one line otherwise, with LoRA), the adapters added and
// the saved tensors loaded. Eval mode.
Classifier load_classifier(const CheckpointData& checkpoint,
                           const std::optional<ClassifierRun>& base_override = std::nullopt);

// The training and held-out inputs a run names.
struct LabelledSplit {
  std::vector<LabelledInput> train, held_out;
};
LabelledSplit read_split(const ClassifierRun& run);

// Accuracy, mean cross-entropy and the confusion counts (row: true label, column: predicted)
// over `inputs`, in eval mode, no graph, batches of about max_tokens pieces.
struct ClassifierScore {
  double accuracy = 0, loss = 0;
  std::vector<std::vector<int64_t>> confusion;
};
ClassifierScore score(const Classifier& classifier, const std::vector<LabelledInput>& inputs,
                      int64_t max_tokens);
// The confusion table as text: a header of predicted labels, a row per true label.
std::string confusion_table(const std::vector<std::string>& labels,
                            const std::vector<std::vector<int64_t>>& confusion);

// Trains, writes checkpoints into options.trainer.out_dir, prints the held-out accuracy and
// confusion table; returns the last checkpoint's directory.
std::string finetune(const FineTuneOptions& options, nn::distributed::Communicator& communicator);

}  // namespace atencion::examples::bert

// examples/bert/finetune_train.cpp — the fine-tune's part of training: the classifier, its
// inputs in batches, the cross-entropy of their labels; the loop is the shared Trainer
// (base/training/trainer.h) under the fine-tune schedule. Lesson: docs/18-finetuning.md
#include <cstdio>
#include <map>
#include <stdexcept>

#include "base/finetune/adapters.h"
#include "base/training/session.h"
#include "bert/finetune.h"
#include "nn/loss.h"

namespace atencion::examples::bert {

namespace {

std::vector<Example> encode_for_training(const std::vector<LabelledInput>& inputs,
                                         const Classifier& classifier) {
  std::map<std::string, int64_t> index;
  for (size_t i = 0; i < classifier.labels.size(); ++i)
    index[classifier.labels[i]] = static_cast<int64_t>(i);
  std::vector<Example> examples;
  for (const LabelledInput& input : inputs)
    examples.push_back({encode_input(*classifier.pieces, input.a, input.b,
                                     classifier.config.max_positions),
                        {index.at(input.label)}});
  return examples;
}

// The classifier as the Trainer sees it: batches of inputs by padded pieces in a seeded order
// (exact on resume), the mean cross-entropy of their labels, the held-out split's loss.
class ClassifierTask : public TrainingTask {
 public:
  ClassifierTask(Classifier& classifier, const ClassifierRun& run, const LabelledSplit& split,
                 nlohmann::json base, BatchPosition start)
      : classifier_(classifier),
        run_(run),
        held_out_(split.held_out),
        base_(std::move(base)),
        train_(encode_for_training(split.train, classifier)),
        options_{.max_tokens = run.max_tokens, .pad_id = classifier.pieces->special().pad},
        stream_(train_, options_, run.seed, start) {}
  ClassifierTask(const ClassifierTask&) = delete;  // stream_ refers to train_
  ClassifierTask& operator=(const ClassifierTask&) = delete;

  nn::Module& model() override { return *classifier_.model; }
  BatchPosition position() const override { return stream_.position(); }
  int64_t batches_per_epoch() const override { return stream_.batches_per_epoch(); }
  const char* speed_unit() const override { return "inputs/s"; }

  StepLoss next_loss(const DataParallel& parallel) override {
    const Batch batch = stream_.next();
    const Batch shard = parallel.shard(batch, train_, options_);
    std::vector<std::vector<int64_t>> inputs;
    std::vector<int64_t> labels;
    for (const size_t index : shard.example_indices) {
      inputs.push_back(train_[index].source_ids);
      labels.push_back(train_[index].target_ids.front());
    }
    const ClassifierBatch mine = classifier_batch(inputs, labels, classifier_.pieces->special());
    const Variable loss = nn::cross_entropy(classifier_.model->forward(mine), mine.labels);
    return {loss, shard.batch_size, batch.batch_size, batch.batch_size};
  }

  double evaluation_loss() override { return score(classifier_, held_out_, run_.max_tokens).loss; }

  CheckpointData checkpoint() const override {
    CheckpointData data;
    data.config["model"] = config_to_json(classifier_.config);
    data.config["run"] = run_;
    data.config["finetune"] = classifier_.finetune;
    data.config["base"] = base_;
    data.model = fine_tuned_tensors(*classifier_.model, classifier_.finetune);
    return data;
  }

 private:
  Classifier& classifier_;
  const ClassifierRun run_;
  const std::vector<LabelledInput> held_out_;
  const nlohmann::json base_;
  const std::vector<Example> train_;
  const BatchOptions options_;
  BatchStream stream_;
};

void check_expected_shape(const ExpectedShape& expected, const BertConfig& config,
                          const std::string& source) {
  const std::pair<const char*, std::pair<int64_t, int64_t>> sizes[] = {
      {"hidden", {expected.hidden, config.hidden}},
      {"heads", {expected.heads, config.heads}},
      {"layers", {expected.layers, config.layers}}};
  for (const auto& [name, pair] : sizes)
    if (pair.first != 0 && pair.first != pair.second)
      throw std::invalid_argument("finetune: --" + std::string(name) + " " +
                                  std::to_string(pair.first) + " contradicts the weights' " +
                                  name + " " + std::to_string(pair.second) + " (" + source + ")");
}

// The held-out accuracy and confusion table, and the inputs read a second.
void say_held_out(Progress& progress, const Classifier& classifier,
                  const LabelledSplit& split, const ClassifierRun& run) {
  const ClassifierScore held_out = score(classifier, split.held_out, run.max_tokens);
  char line[160];
  std::snprintf(line, sizeof line, "held out: accuracy %.2f%%, loss %.4f over %zu inputs",
                100 * held_out.accuracy, held_out.loss, split.held_out.size());
  progress.message(line);
  progress.message("confusion:\n" + confusion_table(classifier.labels, held_out.confusion));
}

}  // namespace

std::string finetune(const FineTuneOptions& requested, nn::distributed::Communicator& communicator) {
  FineTuneOptions options = requested;
  TrainingSession session(communicator, options.trainer);
  std::optional<LoadedBase> base;  // a fresh run's, checked before any data is read
  if (!session.resumes()) {
    base = load_base(options.run);
    check_expected_shape(options.expected, base->lm.config, base->source);
  }
  const LabelledSplit split = read_split(session.resumes()
                                             ? read_classifier_run(session.checkpoint().config,
                                                                   "config.json")
                                             : options.run);
  options.run.labels = label_set(split.train);
  options.run = session.run_config(options.run, read_classifier_run);
  std::optional<Classifier> classifier;
  nlohmann::json base_record_json;
  if (session.resumes()) {
    classifier = load_classifier(session.checkpoint());
    base_record_json = session.checkpoint().config.at("base");
  } else {
    base_record_json = base_record(*base->lm.model, base->source);
    session.progress().message("base: " + base->source + " (weights " +
                               base_record_json.at("checksum").get<std::string>() + ")");
    classifier = make_classifier(std::move(*base), options.run, options.finetune);
  }
  session.prepare(*classifier->model);
  ClassifierTask task(*classifier, options.run, split, base_record_json, session.position());
  session.progress().message("data: " + std::to_string(split.train.size()) + " training inputs, " +
                             std::to_string(split.held_out.size()) + " held out; labels " +
                             nlohmann::json(options.run.labels).dump());
  session.progress().message(trainable_line(*classifier->model));
  OptimizerRecipe recipe;
  recipe.clip_norm = options.run.clip_norm;
  recipe.adam = {.beta2 = 0.999, .eps = 1e-8};  // BERT's fine-tuning Adam
  recipe.fine_tune = classifier->finetune.schedule();
  const TrainingResult result = session.train(task, recipe);
  if (session.parallel().is_main()) say_held_out(session.progress(), *classifier, split, options.run);
  return result.last_checkpoint;
}

}  // namespace atencion::examples::bert

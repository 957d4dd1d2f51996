// examples/bert/finetune.cpp — see finetune.h. Lesson: docs/18-finetuning.md
#include "bert/finetune.h"

#include <cstdio>
#include <map>
#include <stdexcept>

#include "base/data/shuffle.h"
#include "base/finetune/adapters.h"
#include "base/io/json_fields.h"
#include "base/training/session.h"
#include "bert/text.h"
#include "nn/eval_scope.h"
#include "nn/loss.h"
#include "tensor/ops.h"

namespace atencion::examples::bert {
namespace {

// [CLS] a [SEP] (b [SEP]) ids of each input, and its label's index among `labels`.
std::vector<Example> encode_inputs(const std::vector<LabelledInput>& inputs,
                                   const Classifier& classifier) {
  std::map<std::string, int64_t> index;
  for (size_t i = 0; i < classifier.labels.size(); ++i)
    index[classifier.labels[i]] = static_cast<int64_t>(i);
  std::vector<Example> examples;
  for (const LabelledInput& input : inputs) {
    const auto found = index.find(input.label);
    if (found == index.end())
      throw std::invalid_argument("label '" + input.label + "' is not one the classifier was " +
                                  "trained on");
    examples.push_back({encode_input(*classifier.pieces, input.a, input.b,
                                     classifier.config.max_positions),
                        {found->second}});
  }
  return examples;
}

ClassifierBatch batch_of(const Batch& batch, const std::vector<Example>& examples,
                         const SpecialIds& special) {
  std::vector<std::vector<int64_t>> inputs;
  std::vector<int64_t> labels;
  for (const size_t index : batch.example_indices) {
    inputs.push_back(examples[index].source_ids);
    labels.push_back(examples[index].target_ids.front());
  }
  return classifier_batch(inputs, labels, special);
}

BatchOptions batch_options(int64_t max_tokens) {
  return {.max_tokens = max_tokens, .max_sentences = 0, .pad_id = 0, .bos_id = 0, .eos_id = 0};
}

}  // namespace

ClassifierRun read_classifier_run(const nlohmann::json& config, const std::string& file) {
  return read_run_section<ClassifierRun>(config, file, [](const ClassifierRun& run) {
    if (run.bert_dir.empty() == run.init_from.empty())
      refuse_field("bert_dir", run.bert_dir, "one base: bert_dir or init_from");
    if (run.max_tokens < 1) refuse_field("max_tokens", run.max_tokens, "at least 1");
    if (!(run.clip_norm > 0)) refuse_field("clip_norm", run.clip_norm, "above 0");
    if (run.labels.size() < 2) refuse_field("labels", run.labels, "at least 2 labels");
  });
}

LoadedBase load_base(const ClassifierRun& run) {
  LoadedBase base{run.bert_dir.empty()
                      ? MaskedLanguageModel::from_checkpoint(load_checkpoint(run.init_from))
                      : MaskedLanguageModel::from_hugging_face(run.bert_dir),
                  run.bert_dir.empty() ? run.init_from : run.bert_dir};
  if (run.random_weights) {
    base.lm = MaskedLanguageModel::create(base.lm.config, base.lm.pieces, run.seed);
    base.lm.model->eval();
    base.source = "random weights of " + base.source;
  }
  return base;
}

Classifier make_classifier(LoadedBase base, const ClassifierRun& run,
                           const FineTuneSettings& settings) {
  Generator generator(derive_seed(run.seed, 1));
  Classifier classifier{base.lm.config,
                        std::make_shared<BertClassifier>(base.lm.model,
                                                         static_cast<int64_t>(run.labels.size()),
                                                         generator),
                        base.lm.pieces, run.labels, settings};
  apply_lora(*classifier.model->bert, settings, derive_seed(run.seed, 2));
  classifier.model->unfreeze_head();
  return classifier;
}

Classifier load_classifier(const CheckpointData& checkpoint,
                           const std::optional<ClassifierRun>& base_override) {
  const std::string where = checkpoint.directory.empty() ? "checkpoint" : checkpoint.directory;
  const ClassifierRun run = read_classifier_run(checkpoint.config, where + "/config.json");
  const FineTuneSettings settings =
      read_finetune_settings(checkpoint.config, where + "/config.json");
  ClassifierRun base_run = run;
  if (base_override) {
    base_run.bert_dir = base_override->bert_dir;
    base_run.init_from = base_override->init_from;
  }
  LoadedBase base = load_base(base_run);
  if (settings.uses_lora() && checkpoint.config.contains("base"))
    check_same_base(checkpoint.config.at("base"), *base.lm.model, base.source, where);
  Classifier classifier = make_classifier(std::move(base), run, settings);
  load_fine_tuned_tensors(*classifier.model, checkpoint.model, settings, where);
  classifier.model->eval();
  return classifier;
}

LabelledSplit read_split(const ClassifierRun& run) {
  if (run.data_path.empty()) {
    PairTask task = translation_task(shipped_pairs(), run.pair_task);
    return {std::move(task.train), std::move(task.held_out)};
  }
  LabelledSplit split{read_labelled(run.data_path), {}};
  if (!run.held_out_path.empty()) {
    split.held_out = read_labelled(run.held_out_path);
    return split;
  }
  // 1 in 20 lines held out, by a seeded shuffle.
  SplitMix64 generator(run.pair_task.seed);
  shuffle(split.train, generator);
  const auto held = static_cast<long>(split.train.size() / 20 + 1);
  split.held_out.assign(split.train.begin(), split.train.begin() + held);
  split.train.erase(split.train.begin(), split.train.begin() + held);
  if (split.train.empty())
    throw std::invalid_argument(run.data_path + ": too few lines to hold some out");
  return split;
}

ClassifierScore score(const Classifier& classifier, const std::vector<LabelledInput>& inputs,
                      int64_t max_tokens) {
  const std::vector<Example> examples = encode_inputs(inputs, classifier);
  const size_t classes = classifier.labels.size();
  ClassifierScore result{0, 0, std::vector<std::vector<int64_t>>(classes,
                                                                  std::vector<int64_t>(classes))};
  nn::EvalScope evaluating(*classifier.model);
  BatchStream stream(examples, batch_options(max_tokens), 0);
  int64_t right = 0;
  for (int64_t b = 0; b < stream.batches_per_epoch(); ++b) {
    const ClassifierBatch batch =
        batch_of(stream.next(), examples, classifier.pieces->special());
    const Variable logits = classifier.model->forward(batch);
    const Tensor predicted = argmax(logits.value(), 1);
    result.loss += nn::cross_entropy(logits, batch.labels, {.reduction = nn::Reduction::Sum})
                       .item();
    for (int64_t i = 0; i < batch.labels.numel(); ++i) {
      const auto truth = static_cast<int64_t>(batch.labels.at({i}));
      const auto guess = static_cast<int64_t>(predicted.at({i}));
      ++result.confusion[static_cast<size_t>(truth)][static_cast<size_t>(guess)];
      right += truth == guess;
    }
  }
  result.accuracy = static_cast<double>(right) / static_cast<double>(examples.size());
  result.loss /= static_cast<double>(examples.size());
  return result;
}

std::string confusion_table(const std::vector<std::string>& labels,
                            const std::vector<std::vector<int64_t>>& confusion) {
  size_t width = 9;  // "predicted"
  for (const std::string& label : labels) width = std::max(width, label.size());
  auto cell = [&](const std::string& text) {
    return std::string(width + 2 - std::min(width + 2, text.size()), ' ') + text;
  };
  std::string table = std::string(width + 2, ' ');
  for (const std::string& label : labels) table += cell(label);
  table += "   (rows: true label, columns: predicted)\n";
  for (size_t row = 0; row < labels.size(); ++row) {
    table += cell(labels[row]);
    for (const int64_t count : confusion[row]) table += cell(std::to_string(count));
    table += "\n";
  }
  return table;
}

}  // namespace atencion::examples::bert

// examples/bert/commands/classify.cpp — `atencion-bert classify`: a fine-tuned classifier's
// label for a sentence or a pair, or its accuracy and confusion table on labelled lines.
// Lesson: docs/18-finetuning.md#classify
//
// LoRA adapters are folded into the weights first (nn::merge_lora: W ← W + (α/r)·B A), so
// classifying costs what the plain model costs; the logits are the same (tests/examples/bert/
// test_classifier.cpp).
#include <cmath>
#include <cstdio>
#include <memory>

#include "base/cli/validators.h"
#include "bert/commands/commands.h"
#include "bert/finetune.h"
#include "nn/eval_scope.h"
#include "nn/lora.h"
#include "tensor/ops.h"

namespace atencion::examples::bert {
namespace {

struct ClassifyOptions {
  std::string model_dir = "runs/bert-classifier";
  ClassifierRun base;      // --bert / --init-from: another copy of the base, checked
  std::string data_path;   // labelled lines to score; "" with no text: the run's held-out split
  std::vector<std::string> texts;  // one sentence, or a pair
  int64_t max_tokens = 2048;
};

void say_label(const Classifier& classifier, const std::vector<std::string>& texts) {
  const std::vector<int64_t> ids =
      encode_input(*classifier.pieces, texts[0], texts.size() > 1 ? texts[1] : "",
                   classifier.config.max_positions);
  nn::EvalScope evaluating(*classifier.model);
  const Tensor logits =
      classifier.model->forward(classifier_batch({ids}, {0}, classifier.pieces->special()))
          .value();
  const Tensor probabilities = softmax(logits, 1);
  const auto best = static_cast<size_t>(argmax(logits, 1).at({0}));
  std::printf("%s", classifier.labels[best].c_str());
  for (size_t i = 0; i < classifier.labels.size(); ++i)
    std::printf("%s%s %.3f", i == 0 ? "  (" : ", ", classifier.labels[i].c_str(),
                probabilities.at({0, static_cast<int64_t>(i)}));
  std::printf(")\n");
}

void classify(const ClassifyOptions& options) {
  const CheckpointData checkpoint = load_checkpoint(options.model_dir);
  std::optional<ClassifierRun> base_override;
  if (!options.base.bert_dir.empty() || !options.base.init_from.empty()) base_override = options.base;
  Classifier classifier = load_classifier(checkpoint, base_override);
  if (const int64_t merged = nn::merge_lora(*classifier.model))
    std::fprintf(stderr, "merged %lld LoRA adapters into their weights\n",
                 static_cast<long long>(merged));
  if (!options.texts.empty()) return say_label(classifier, options.texts);
  const ClassifierRun run = read_classifier_run(checkpoint.config, checkpoint.directory);
  const std::vector<LabelledInput> inputs =
      options.data_path.empty() ? read_split(run).held_out : read_labelled(options.data_path);
  const ClassifierScore result = score(classifier, inputs, options.max_tokens);
  std::printf("%s: accuracy %.2f%%, loss %.4f over %zu inputs\n%s",
              options.data_path.empty() ? "held out" : options.data_path.c_str(),
              100 * result.accuracy, result.loss, inputs.size(),
              confusion_table(classifier.labels, result.confusion).c_str());
}

}  // namespace

Subcommand add_classify_command(CLI::App& app) {
  auto options = std::make_shared<ClassifyOptions>();
  CLI::App* command = app.add_subcommand(
      "classify", "label a sentence or a pair, or score labelled lines, with a fine-tuned BERT");
  command->add_option("--model", options->model_dir, "run directory of `atencion-bert finetune`")
      ->capture_default_str();
  auto* bert = command->add_option("--bert", options->base.bert_dir,
                                   "the base, from this Hugging Face directory instead")
                   ->check(CLI::ExistingDirectory);
  command->add_option("--init-from", options->base.init_from,
                      "the base, from this run instead")->check(CLI::ExistingPath)->excludes(bert);
  auto* data = command->add_option("--data", options->data_path,
                                   "label<TAB>text[<TAB>text] lines to score (default: the "
                                   "run's held-out split)")
                   ->check(CLI::ExistingFile)->check(regular_file());
  command->add_option("texts", options->texts, "a sentence, or the two of a pair")
      ->expected(0, 2)->excludes(data);
  command->add_option("--max-tokens", options->max_tokens, "padded pieces per batch")
      ->capture_default_str()->check(at_least(1));
  return {command, [options] { classify(*options); }};
}

}  // namespace atencion::examples::bert

// examples/gpt/commands/eval.cpp — `atencion-gpt eval`: loss, perplexity and bits per byte on a
// text; for a model of `train --task translate`, BLEU on its run's test split.
// Lessons: docs/15-gpt.md#measuring-a-language-model, docs/18-finetuning.md#the-gpt-instruction-fine-tuning
#include <chrono>
#include <cstdio>
#include <memory>

#include "base/cli/validators.h"
#include "base/data/bleu.h"
#include "base/data/split.h"
#include "base/data/tsv.h"
#include "base/io/file_checks.h"
#include "base/training/progress.h"
#include "gpt/commands/commands.h"
#include "gpt/instructions.h"
#include "gpt/language_model.h"
#include "gpt/train.h"

namespace atencion::examples::gpt {

namespace {

// A line on stderr every 10 s while a long text is scored (the held-out split of the default
// run is 170,000 bytes: minutes on a busy machine): how far, the loss so far, the time left.
class EvalProgress {
 public:
  explicit EvalProgress(size_t batches) : batches_(batches) {}
  void operator()(size_t done, const LanguageModel::Score& so_far) {
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    if (done == batches_ || seconds < next_line_) return;
    next_line_ = seconds + 10;
    const double left = seconds / static_cast<double>(done) * static_cast<double>(batches_ - done);
    std::fprintf(stderr, "eval: batch %zu of %zu, loss so far %.4f, %s left\n", done, batches_,
                 so_far.nats / static_cast<double>(so_far.predictions),
                 format_duration(left).c_str());
  }

 private:
  using Clock = std::chrono::steady_clock;
  size_t batches_;
  Clock::time_point start_ = Clock::now();
  double next_line_ = 10;
};

}  // namespace

EvalResult evaluate(const EvalOptions& options) {
  const LanguageModel language_model = load_model(options.source, "eval");
  std::string text;
  if (!options.text_path.empty()) {
    text = read_file(options.text_path);
  } else if (options.source.gpt2_dir.empty()) {  // the held-out split of the model's own run
    const CheckpointData checkpoint = load_checkpoint(options.source.model_dir, true);
    text = split_text(load_text(read_run_config(checkpoint.config, checkpoint.directory +
                                                                       "/config.json")))
               .held_out;
  } else {
    throw std::invalid_argument("eval --gpt2 needs --text FILE");
  }
  const std::vector<int64_t> tokens = language_model.tokenizer->encode(text);
  if (tokens.size() < 2)
    throw std::invalid_argument("eval: the text is " + std::to_string(tokens.size()) +
                                " token(s); scoring needs at least 2");
  const auto batches = evaluation_batches(tokens, language_model.model->config().context,
                                          options.batch_size, 0);
  const LanguageModel::Score score = language_model.score(batches, EvalProgress(batches.size()));
  // Every token but the first is predicted; the first token's bytes are not scored.
  const int64_t bytes = static_cast<int64_t>(
      language_model.tokenizer->decode(std::vector<int64_t>(tokens.begin() + 1, tokens.end())).size());
  const TextMeasures measured = measures(score, bytes);
  return {score.predictions, bytes, measured.loss, measured.perplexity, measured.bits_per_byte};
}

bool trained_to_translate(const ModelSource& source) {
  if (!source.gpt2_dir.empty()) return false;
  const CheckpointData checkpoint = load_checkpoint(source.model_dir, true);
  return read_run_config(checkpoint.config, checkpoint.directory + "/config.json").task ==
         "translate";
}

double evaluate_translation(const EvalOptions& options) {
  LanguageModel language_model = load_language_model(options.source.model_dir, "");
  const CheckpointData checkpoint = load_checkpoint(options.source.model_dir, true);
  const RunConfig run = read_run_config(checkpoint.config, checkpoint.directory + "/config.json");
  const std::string path = run.text_path.empty() ? default_pairs_path() : run.text_path;
  std::vector<SentencePair> pairs = split_run_pairs(read_pairs(path), run.max_words, run.split_seed).test;
  if (options.limit > 0 && static_cast<int64_t>(pairs.size()) > options.limit)
    pairs.resize(static_cast<size_t>(options.limit));
  std::vector<std::string> sources, references;
  for (const SentencePair& pair : pairs) {
    sources.push_back(pair.source);
    references.push_back(pair.target);
  }
  const std::vector<std::string> hypotheses = translate_sentences(
      *language_model.model, *language_model.tokenizer, sources, 64, options.batch_size);
  const BleuScore bleu = corpus_bleu(hypotheses, references);
  std::printf("eval: %zu pairs of the test split (at most %lld words a side), greedy\n",
              pairs.size(), static_cast<long long>(run.max_words));
  std::printf("BLEU = %.2f  (%.1f/%.1f/%.1f/%.1f, BP %.3f, hyp %lld ref %lld words)\n", bleu.score,
              bleu.precisions[0], bleu.precisions[1], bleu.precisions[2], bleu.precisions[3],
              bleu.brevity_penalty, static_cast<long long>(bleu.hypothesis_length),
              static_cast<long long>(bleu.reference_length));
  std::printf("exact match = %.1f%%\n", 100.0 * exact_match_rate(hypotheses, references));
  for (int64_t i = 0; i < options.samples && i < static_cast<int64_t>(pairs.size()); ++i) {
    const auto at = static_cast<size_t>(i);
    std::printf("  es:  %s\n  ref: %s\n  out: %s\n", sources[at].c_str(), references[at].c_str(),
                hypotheses[at].c_str());
  }
  return bleu.score;
}

Subcommand add_eval_command(CLI::App& app) {
  auto options = std::make_shared<EvalOptions>();
  CLI::App* command = app.add_subcommand(
      "eval", "loss, perplexity and bits per byte on a text; BLEU for a translate run");
  add_model_source_options(command, options->source);
  command->add_option("--text", options->text_path,
                      "a text file (default: the held-out split of the model's run)")
      ->check(regular_file());
  command->add_option("--batch-size", options->batch_size)
      ->capture_default_str()->check(at_least(1));
  command->add_option("--limit", options->limit,
                      "a translate run: the first N pairs of its test split (0: all)")
      ->capture_default_str()->check(at_least(0));
  command->add_option("--samples", options->samples,
                      "a translate run: translations printed beside their reference")
      ->capture_default_str()->check(at_least(0));
  return {command, [options] {
            if (options->text_path.empty() && trained_to_translate(options->source)) {
              evaluate_translation(*options);
              return;
            }
            const EvalResult result = evaluate(*options);
            std::printf("tokens %lld, bytes %lld: loss %.4f, perplexity %.3f, bits per byte %.4f\n",
                        static_cast<long long>(result.tokens), static_cast<long long>(result.bytes),
                        result.loss, result.perplexity, result.bits_per_byte);
          }};
}

}  // namespace atencion::examples::gpt

// examples/bert/commands/eval.cpp — `atencion-bert eval`: masked-token accuracy and loss on a
// text, masked from a fixed seed so that two runs and two models see the same positions.
// Lesson: docs/16-bert.md#the-program
#include <cstdio>
#include <memory>

#include "base/cli/validators.h"
#include "bert/commands/commands.h"
#include "bert/text.h"
#include "bert/train.h"

namespace atencion::examples::bert {
namespace {

struct EvalOptions {
  ModelSource source;
  std::string text_path;  // "" = the held-out split of the run's own text (a --model run)
  uint64_t seed = kHeldOutMaskingSeed;
  int64_t max_tokens = 4096;
};

void run(const EvalOptions& options) {
  const MaskedLanguageModel lm = load_model(options.source);
  std::vector<std::string> sentences;
  std::string what = options.text_path;
  if (options.text_path.empty()) {
    if (!options.source.bert_dir.empty())
      throw std::invalid_argument("eval: give --text FILE with --bert (a published model has no "
                                  "held-out split of ours)");
    const CheckpointData checkpoint = load_checkpoint(options.source.model_dir);
    const RunConfig run_config = read_run_config(checkpoint.config, checkpoint.directory +
                                                                        "/config.json");
    sentences = split_sentences(read_sentences(run_config.text_path), run_config.split_seed).held_out;
    what = "the run's held-out split";
  } else {
    sentences = read_sentences(options.text_path);
  }
  std::vector<std::vector<int64_t>> encoded;
  for (const std::string& sentence : sentences) {
    std::vector<int64_t> ids = lm.pieces->encode(sentence);
    if (static_cast<int64_t>(ids.size()) <= lm.config.max_positions) encoded.push_back(std::move(ids));
  }
  const MaskedScore score = score_masked(lm, encoded, options.seed, options.max_tokens);
  std::printf("%s: %zu sentences, %lld masked pieces (seed %llu): accuracy %.2f%%, loss %.4f\n",
              what.c_str(), encoded.size(), static_cast<long long>(score.masked),
              static_cast<unsigned long long>(options.seed), 100 * score.accuracy, score.loss);
}

}  // namespace

Subcommand add_eval_command(CLI::App& app) {
  auto options = std::make_shared<EvalOptions>();
  CLI::App* command = app.add_subcommand("eval", "masked-token accuracy and loss on a text");
  add_model_source_options(command, options->source);
  command->add_option("--text", options->text_path,
                      "UTF-8 text, a sentence a line (default: the run's held-out split)")
      ->check(CLI::ExistingFile)->check(regular_file());
  command->add_option("--seed", options->seed, "seed of the masking")
      ->capture_default_str()->check(seed_number());
  command->add_option("--max-tokens", options->max_tokens, "padded pieces per batch")
      ->capture_default_str()->check(at_least(1));
  return {command, [options] { run(*options); }};
}

}  // namespace atencion::examples::bert

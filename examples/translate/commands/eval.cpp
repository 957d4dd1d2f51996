// examples/translate/commands/eval.cpp — `atencion-translate eval`: BLEU, exact match and
// samples of a model's translations of a test set. (And the decoding options eval and
// translate share: a beam, or sampling with the GPT's knobs.)
// Lesson: docs/12-translation.md#bleu
#include "translate/commands/commands.h"

#include <cstdio>
#include <memory>

#include "base/decoding/sampling_options.h"
#include "base/cli/validators.h"
#include "base/data/tsv.h"
#include "base/data/bleu.h"
#include "translate/cli_checks.h"
#include "translate/data.h"
#include "translate/train.h"

namespace atencion::examples::translate {
namespace {

// "greedy", "beam 4", or "sampling (temperature 0.8, top-k 0, top-p 0.9, seed 3)".
std::string decoding_name(const decoding::DecodeOptions& decode) {
  if (decode.sample) {
    const decoding::SamplingOptions& s = decode.sampling;
    char text[160];
    std::snprintf(text, sizeof text, "sampling (temperature %g, top-k %lld, top-p %g, seed %llu)",
                  s.temperature, static_cast<long long>(s.top_k), s.top_p,
                  static_cast<unsigned long long>(s.seed));
    return text;
  }
  return decode.beam > 1 ? "beam " + std::to_string(decode.beam) : "greedy";
}

}  // namespace

double evaluate(const EvalOptions& options) {
  const CheckpointData checkpoint = load_checkpoint(options.model_dir);
  const Translator translator = Translator::from_checkpoint(checkpoint);
  std::vector<SentencePair> pairs;
  std::string what;
  if (!options.data_path.empty()) {
    pairs = read_pairs(options.data_path);
    what = options.data_path;
  } else {
    // The run's settings, each checked as train --resume checks them.
    const RunConfig run = read_run_config(checkpoint.config, checkpoint.directory + "/config.json");
    pairs = load_split(run.data_path, run.max_words, run.split_seed).test;
    what = "the test split (at most " + std::to_string(run.max_words) + " words a side)";
  }
  if (options.limit > 0 && static_cast<int64_t>(pairs.size()) > options.limit)
    pairs.resize(options.limit);
  std::vector<std::string> sources, references;
  for (const auto& pair : pairs) {
    sources.push_back(pair.source);
    references.push_back(pair.target);
  }
  const std::vector<std::string> hypotheses = translate_sentences(translator, sources, options.decode);
  const BleuScore bleu = corpus_bleu(hypotheses, references);
  std::printf("eval: %zu pairs of %s, %s\n", pairs.size(), what.c_str(),
              decoding_name(options.decode).c_str());
  std::printf("BLEU = %.2f  (%.1f/%.1f/%.1f/%.1f, BP %.3f, hyp %lld ref %lld words)\n", bleu.score,
              bleu.precisions[0], bleu.precisions[1], bleu.precisions[2], bleu.precisions[3],
              bleu.brevity_penalty, static_cast<long long>(bleu.hypothesis_length),
              static_cast<long long>(bleu.reference_length));
  std::printf("exact match = %.1f%%\n", 100.0 * exact_match_rate(hypotheses, references));
  for (int64_t i = 0; i < options.samples && i < static_cast<int64_t>(pairs.size()); ++i)
    std::printf("  es:  %s\n  ref: %s\n  out: %s\n", sources[i].c_str(), references[i].c_str(),
                hypotheses[i].c_str());
  return bleu.score;
}

void add_decode_options(CLI::App* command, std::string& model_dir, decoding::DecodeOptions& decode) {
  command->add_option("--model", model_dir, "run or checkpoint directory")->capture_default_str();
  CLI::Option* beam = command->add_option("--beam", decode.beam, "beam width (1: greedy)")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, kLargestBeam));
  command->add_option("--length-penalty", decode.length_penalty,
                      "alpha of beam search's length penalty ((5 + n) / 6)^alpha (0: none)")
      ->capture_default_str()->check(CLI::Range(0.0, 10.0))->needs(beam);
  command->add_option("--max-length", decode.max_length, "longest translation, in pieces")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, kLongestMaxLen));
  command->add_option("--batch-size", decode.batch_size, "sentences decoded at once")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, kLargestBatch));
  CLI::Option* sample =
      command->add_flag_function(
              "--sample",
              [&decode](int64_t) {
                decode.sample = true;
                decode.beam = 1;  // sampling draws one output per source, no beam
              },
              "draw each piece by chance (--temperature, --top-k, --top-p, --seed) "
              "instead of searching for the most probable translation")
          ->excludes(beam);
  const SamplingFlags sampling = add_sampling_options(command, decode.sampling);
  for (CLI::Option* option : {sampling.temperature, sampling.top_k, sampling.top_p, sampling.seed})
    option->needs(sample);
}

Subcommand add_eval_command(CLI::App& app) {
  auto options = std::make_shared<EvalOptions>();
  CLI::App* command = app.add_subcommand("eval", "BLEU, exact match and samples on a test set");
  add_decode_options(command, options->model_dir, options->decode);
  command->add_option("--data", options->data_path, "pairs file (default: the run's test split)")
      ->check(CLI::ExistingFile)->check(regular_file());
  command->add_option("--samples", options->samples)->capture_default_str()->check(at_least(0));
  command->add_option("--limit", options->limit, "score only the first N pairs")
      ->capture_default_str()->check(at_least(0));
  return {command, [options] { evaluate(*options); }};
}

}  // namespace atencion::examples::translate

// examples/bert/commands/fill_mask.cpp — `atencion-bert fill-mask`: the most probable pieces for
// each [MASK] of each sentence, from the arguments or, without any, from stdin in batches.
// Lesson: docs/16-bert.md#the-program
#include <cstdio>
#include <iostream>
#include <memory>

#include "base/cli/validators.h"
#include "bert/commands/commands.h"

namespace atencion::examples::bert {
namespace {

struct FillMaskOptions {
  ModelSource source;
  std::vector<std::string> sentences;  // none: lines of stdin
  int64_t top_k = 5;
  int64_t batch_size = 32;             // stdin lines per forward pass
};

// "Me gusta [MASK] libros." then, per mask, "  [MASK] 1: los 0.8123  las 0.0712 ...".
void print(const std::string& sentence, const std::vector<std::vector<Guess>>& masks) {
  std::printf("%s\n", sentence.c_str());
  for (size_t m = 0; m < masks.size(); ++m) {
    std::printf("  [MASK] %zu:", m + 1);
    for (const Guess& guess : masks[m])
      std::printf("  %s %.4f", guess.piece.c_str(), guess.probability);
    std::printf("\n");
  }
}

void fill_batch(const MaskedLanguageModel& lm, const std::vector<std::string>& sentences,
                int64_t top_k) {
  if (sentences.empty()) return;
  const auto guesses = lm.fill_mask(sentences, top_k);
  for (size_t i = 0; i < sentences.size(); ++i) print(sentences[i], guesses[i]);
  std::fflush(stdout);
}

void run(const FillMaskOptions& options) {
  const MaskedLanguageModel lm = load_model(options.source);
  if (!options.sentences.empty()) return fill_batch(lm, options.sentences, options.top_k);
  std::vector<std::string> batch;
  for (std::string line; std::getline(std::cin, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    batch.push_back(line);
    if (static_cast<int64_t>(batch.size()) == options.batch_size) {
      fill_batch(lm, batch, options.top_k);
      batch.clear();
    }
  }
  fill_batch(lm, batch, options.top_k);
}

}  // namespace

Subcommand add_fill_mask_command(CLI::App& app) {
  auto options = std::make_shared<FillMaskOptions>();
  CLI::App* command = app.add_subcommand(
      "fill-mask", "the most probable pieces for each [MASK] (sentences, or lines of stdin)");
  add_model_source_options(command, options->source);
  command->add_option("--top-k", options->top_k, "pieces shown per [MASK]")
      ->capture_default_str()->check(at_least(1));
  command->add_option("--batch-size", options->batch_size, "stdin lines per forward pass")
      ->capture_default_str()->check(at_least(1));
  command->add_option("sentences", options->sentences, "sentences with [MASK] (default: stdin)");
  return {command, [options] { run(*options); }};
}

}  // namespace atencion::examples::bert

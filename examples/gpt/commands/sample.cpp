// examples/gpt/commands/sample.cpp — `atencion-gpt sample`: text from a prompt, each token
// printed as it is drawn, or the best continuation of a beam search (--beam).
// Lesson: docs/15-gpt.md#sampling
#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>

#include "base/cli/validators.h"
#include "base/decoding/sampling_options.h"
#include "gpt/commands/commands.h"
#include "gpt/language_model.h"

namespace atencion::examples::gpt {

std::string sample(const SampleOptions& options) {
  const LanguageModel language_model =
      load_language_model(options.source.model_dir, options.source.gpt2_dir);
  std::string prompt = options.prompt;
  if (!options.prompt_given)
    prompt.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  std::vector<int64_t> prompt_ids = language_model.tokenizer.encode(prompt);
  const int64_t context = language_model.model->config().context;
  if (static_cast<int64_t>(prompt_ids.size()) > context)  // refused, not cut: said before any output
    throw std::invalid_argument("the prompt is " + std::to_string(prompt_ids.size()) +
                                " tokens, longer than the model's context of " +
                                std::to_string(context) + " (give its end only)");
  if (prompt_ids.empty())  // nothing to continue: start where a line (or a document) starts
    prompt_ids = {language_model.tokenizer.start_id()};
  else
    std::fwrite(prompt.data(), 1, prompt.size(), stdout);
  // Print each token as it comes: the text decoded so far, less what is already out (a
  // SentencePiece piece may change how the one before it decodes, e.g. its leading space).
  std::vector<int64_t> generated;
  std::string printed;
  auto on_token = [&](int64_t token) {
    generated.push_back(token);
    const std::string text = language_model.tokenizer.decode(generated);
    if (text.size() > printed.size() && text.compare(0, printed.size(), printed) == 0) {
      std::fwrite(text.data() + printed.size(), 1, text.size() - printed.size(), stdout);
      std::fflush(stdout);
      printed = text;
    }
  };
  const auto start = std::chrono::steady_clock::now();
  generate(*language_model.model, prompt_ids, options.generate, on_token);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fputc('\n', stdout);
  std::fflush(stdout);
  // How fast, on stderr (stdout holds only the text): the prompt's forward and every new token.
  std::fprintf(stderr, "%zu tokens in %.3f s (%.1f tokens/s)\n", generated.size(), seconds,
               seconds > 0 ? static_cast<double>(generated.size()) / seconds : 0.0);
  return language_model.tokenizer.decode(generated);
}

Subcommand add_sample_command(CLI::App& app) {
  auto options = std::make_shared<SampleOptions>();
  CLI::App* command = app.add_subcommand("sample", "continue a prompt (argument or stdin)");
  add_model_source_options(command, options->source);
  command->add_option("--max-new-tokens", options->generate.max_new_tokens)
      ->capture_default_str()->check(at_least(0));
  const SamplingFlags sampling = add_sampling_options(command, options->generate.sampling);
  command->add_option("--beam", options->generate.beam,
                      "beam search of this width instead of sampling (1: greedy)")
      ->check(CLI::Range(int64_t{1}, int64_t{64}))
      ->excludes(sampling.temperature)->excludes(sampling.top_k)->excludes(sampling.top_p)
      ->excludes(sampling.seed);
  command->add_option("prompt", options->prompt, "the text to continue (default: stdin)");
  return {command, [options, command] {
            options->prompt_given = command->get_option("prompt")->count() > 0;
            sample(*options);
          }};
}

}  // namespace atencion::examples::gpt

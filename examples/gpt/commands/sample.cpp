// examples/gpt/commands/sample.cpp — `atencion-gpt sample`: text from a prompt, each token
// printed as it is drawn, or the best continuation of a beam search (--beam); with --translate,
// the translations of a translate run (docs/18-finetuning.md).
// Lesson: docs/15-gpt.md#sampling
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>

#include "base/cli/validators.h"
#include "base/data/utf8.h"
#include "base/decoding/sampling_options.h"
#include "gpt/commands/commands.h"
#include "gpt/instructions.h"
#include "gpt/language_model.h"

namespace atencion::examples::gpt {

namespace {

// Writes the bytes of the text as they are drawn. To a terminal, a byte that is not UTF-8 (a
// model of bytes may draw any) or a control character is written \xNN, and the first bytes of a
// character wait for the rest (escape_for_terminal, base/data/utf8.h); to a file or a pipe,
// every byte as it is.
class TokenPrinter {
 public:
  explicit TokenPrinter(std::FILE* out) : out_(out), terminal_(::isatty(::fileno(out)) != 0) {}
  void write(std::string_view bytes, bool at_end = false) {
    if (!terminal_) {
      std::fwrite(bytes.data(), 1, bytes.size(), out_);
    } else {
      pending_.append(bytes);
      std::string shown;
      pending_.erase(0, escape_for_terminal(pending_, at_end, shown));
      std::fwrite(shown.data(), 1, shown.size(), out_);
    }
    std::fflush(out_);
  }

 private:
  std::FILE* out_;
  bool terminal_;
  std::string pending_;  // the start of a character whose other bytes are still to come
};

// --translate: each non-empty line translated, the translations one a line.
std::string translate_prompt_lines(const LanguageModel& language_model, const std::string& prompt,
                                   int64_t max_new_tokens) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < prompt.size()) {
    size_t end = prompt.find('\n', start);
    if (end == std::string::npos) end = prompt.size();
    if (end > start) lines.push_back(prompt.substr(start, end - start));
    start = end + 1;
  }
  std::string out;
  for (const std::string& translation : translate_sentences(
           *language_model.model, *language_model.tokenizer, lines, max_new_tokens))
    out += translation + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  return out;
}

}  // namespace

std::string sample(const SampleOptions& options) {
  const LanguageModel language_model = load_model(options.source, "sample");
  pack_for_decoding(*language_model.model);  // a token at a time: the weights read as one stream
  std::string prompt = options.prompt;
  if (!options.prompt_given)
    prompt.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  if (options.translate)
    return translate_prompt_lines(language_model, prompt, options.generate.max_new_tokens);
  std::vector<int64_t> prompt_ids = language_model.tokenizer->encode(prompt);
  const int64_t context = language_model.model->config().context;
  if (static_cast<int64_t>(prompt_ids.size()) > context)  // refused, not cut: said before any output
    throw std::invalid_argument("the prompt is " + std::to_string(prompt_ids.size()) +
                                " tokens, longer than the model's context of " +
                                std::to_string(context) + " (give its end only)");
  TokenPrinter printer(stdout);
  if (prompt_ids.empty())  // nothing to continue: start where a line (or a document) starts
    prompt_ids = {language_model.tokenizer->start_id()};
  else
    printer.write(prompt);
  // Print each token as it comes: the text decoded so far, less what is already out (a
  // SentencePiece piece may change how the one before it decodes, e.g. its leading space).
  std::vector<int64_t> generated;
  std::string printed;
  auto on_token = [&](int64_t token) {
    generated.push_back(token);
    const std::string text = language_model.tokenizer->decode(generated);
    if (text.size() > printed.size() && text.compare(0, printed.size(), printed) == 0) {
      printer.write(std::string_view(text).substr(printed.size()));
      printed = text;
    }
  };
  const auto start = std::chrono::steady_clock::now();
  generate(*language_model.model, prompt_ids, options.generate, on_token);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printer.write("\n", /*at_end=*/true);
  // How fast, on stderr (stdout holds only the text): the prompt's forward and every new token.
  std::fprintf(stderr, "%zu tokens in %.3f s (%.1f tokens/s)\n", generated.size(), seconds,
               seconds > 0 ? static_cast<double>(generated.size()) / seconds : 0.0);
  return language_model.tokenizer->decode(generated);
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
  command->add_flag("--translate", options->translate,
                    "each line is Spanish: print its translation (a model of train --task "
                    "translate; greedy)")
      ->excludes("--beam")->excludes(sampling.temperature)->excludes(sampling.top_k)
      ->excludes(sampling.top_p)->excludes(sampling.seed);
  command->add_option("prompt", options->prompt, "the text to continue (default: stdin)");
  return {command, [options, command] {
            options->prompt_given = command->get_option("prompt")->count() > 0;
            sample(*options);
          }};
}

}  // namespace atencion::examples::gpt

// examples/translate/commands/translate.cpp — `atencion-translate translate`: the sentences given
// as arguments, or one per line on stdin, each translation on a line of its own.
// Lesson: docs/12-translation.md#the-program
#include <unistd.h>

#include <iostream>
#include <memory>

#include "translate/cli_checks.h"
#include "translate/commands/commands.h"

namespace atencion::examples::translate {
namespace {

struct TranslateOptions {
  std::string model_dir = "runs/spa-eng";
  decoding::DecodeOptions decode = decode_options(kDefaultBeam, 64);
  std::vector<std::string> sentences;  // none: read stdin
};

bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

// An empty translation of a sentence is a model that predicts the end of the sentence first
// (one trained for a few steps): stdout keeps its one line per sentence, stderr says why.
void explain_empty(const std::vector<std::string>& sentences,
                   const std::vector<std::string>& translations) {
  size_t empty = 0;
  for (size_t i = 0; i < translations.size(); ++i)
    if (translations[i].empty() && !is_blank(sentences[i])) ++empty;
  if (empty > 0)
    std::cerr << "atencion-translate: " << empty << " of " << translations.size()
              << " translations are empty: the model ends the sentence at once (a model that has"
                 " trained longer does not)\n";
}

// One sentence per line in, one translation per line out, nothing else on stdout. From a
// terminal each line is answered as it comes; from a pipe or a file all lines are read first
// and translated in length-sorted batches (the same translations, faster).
void translate_stdin(const Translator& translator, const decoding::DecodeOptions& decode) {
  refuse_unreadable_stdin();  // a directory reads as nothing: say so rather than end silently
  const bool interactive = isatty(fileno(stdin)) != 0;
  std::vector<std::string> lines, translations;
  for (std::string line; std::getline(std::cin, line);) {
    lines.push_back(std::move(line));
    if (!interactive) continue;
    translations.push_back(translate_lines(translator, {lines.back()}, decode)[0]);
    std::cout << translations.back() << "\n" << std::flush;
  }
  if (!interactive) {
    translations = translate_lines(translator, lines, decode);
    for (const auto& translation : translations) std::cout << translation << "\n";
  }
  explain_empty(lines, translations);
}

void run_translate(const TranslateOptions& options) {
  const Translator translator = Translator::from_checkpoint(load_checkpoint(options.model_dir));
  pack_weights_for_inference(translator);
  if (options.sentences.empty()) return translate_stdin(translator, options.decode);
  const std::vector<std::string> translations =
      translate_sentences(translator, options.sentences, options.decode);
  for (const auto& translation : translations) std::cout << translation << "\n";
  explain_empty(options.sentences, translations);
}

}  // namespace

Subcommand add_translate_command(CLI::App& app) {
  auto options = std::make_shared<TranslateOptions>();
  CLI::App* command =
      app.add_subcommand("translate", "translate sentences (arguments, or one per line on stdin)");
  add_decode_options(command, options->model_dir, options->decode);
  command->add_option("sentences", options->sentences, "Spanish sentences");
  return {command, [options] { run_translate(*options); }};
}

}  // namespace atencion::examples::translate

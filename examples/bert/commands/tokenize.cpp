// examples/bert/commands/tokenize.cpp — `atencion-bert tokenize`: the pieces (or ids) the model
// reads for each line of stdin or each argument, [CLS] and [SEP] included.
// Lesson: docs/16-bert.md#three-ways-to-cut-words
#include <cstdio>
#include <iostream>
#include <memory>

#include "bert/commands/commands.h"

namespace atencion::examples::bert {
namespace {

struct TokenizeOptions {
  ModelSource source;
  std::vector<std::string> sentences;  // none: lines of stdin
  bool ids = false;
};

void print(const MaskedLanguageModel& lm, const std::string& sentence, bool ids) {
  const std::vector<int64_t> encoded = lm.pieces->encode(sentence);
  std::string line;
  for (const int64_t id : encoded)
    line += (line.empty() ? "" : " ") + (ids ? std::to_string(id) : lm.pieces->piece(id));
  std::printf("%s\n", line.c_str());
}

}  // namespace

Subcommand add_tokenize_command(CLI::App& app) {
  auto options = std::make_shared<TokenizeOptions>();
  CLI::App* command = app.add_subcommand("tokenize", "the pieces of each sentence (or stdin line)");
  add_model_source_options(command, options->source);
  command->add_flag("--ids", options->ids, "print the ids instead of the pieces");
  command->add_option("sentences", options->sentences, "sentences (default: stdin)");
  return {command, [options] {
            const MaskedLanguageModel lm = load_model(options->source);
            for (const std::string& sentence : options->sentences) print(lm, sentence, options->ids);
            if (!options->sentences.empty()) return;
            for (std::string line; std::getline(std::cin, line);) {
              if (!line.empty() && line.back() == '\r') line.pop_back();
              print(lm, line, options->ids);
            }
          }};
}

}  // namespace atencion::examples::bert

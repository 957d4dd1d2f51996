// examples/translate/commands/commands.h — the subcommands of `atencion-translate`, one file
// each: train.cpp, translate.cpp, eval.cpp, show.cpp, serve.cpp. Each add_*_command adds its subcommand
// and options to the program's CLI::App and returns what runs it once the line is parsed.
// Lesson: docs/12-translation.md#the-program
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "base/cli/program.h"
#include "nn/distributed.h"
#include "translate/cli_checks.h"
#include "translate/decode.h"

namespace atencion::examples::translate {

// `communicator`: the program's processes (main makes it; it outlives the subcommand).
Subcommand add_train_command(CLI::App& app, nn::distributed::Communicator& communicator);
Subcommand add_translate_command(CLI::App& app);
Subcommand add_eval_command(CLI::App& app);
Subcommand add_show_command(CLI::App& app);
Subcommand add_serve_command(CLI::App& app);  // commands/serve.cpp

// --model, --beam, --length-penalty, --max-length, --batch-size, and --sample with --temperature,
// --top-k, --top-p and --seed, as translate and eval take them (--sample makes the beam 1).
void add_decode_options(CLI::App* command, std::string& model_dir, decoding::DecodeOptions& decode);

struct EvalOptions {
  std::string model_dir = "runs/spa-eng";
  std::string data_path;  // "" = the test split of the data the model was trained on
  decoding::DecodeOptions decode = decode_options(kDefaultBeam, 64);
  int64_t samples = 5;    // sample translations to print
  int64_t limit = 0;      // score only the first N pairs (0 = all)
};
// Prints BLEU, exact match and samples to stdout; returns the BLEU score.
double evaluate(const EvalOptions& options);

struct ShowOptions {
  std::string model_dir = "runs/spa-eng";
  std::vector<std::string> sentences;  // one or more
  std::string out_dir;  // "" = <model_dir>/show
  bool html = false;    // also write explorer.html (examples/base/pages/explorer.h)
};
// Writes SVG heat maps of every layer's and head's encoder self-, decoder masked self- and
// encoder-decoder attention for the first sentence and its translation, and the training
// curves; with `html`, also the attention explorer, one page holding every sentence's maps and
// the curves. Returns the list of files written.
std::vector<std::string> show(const ShowOptions& options);

}  // namespace atencion::examples::translate

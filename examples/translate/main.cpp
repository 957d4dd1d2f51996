// examples/translate/main.cpp — `atencion-translate`: train, translate, eval, show, serve (one file
// each in commands/).
// Lesson: docs/12-translation.md
//
//   atencion-translate train [--minutes 9] [--data pairs.tsv] [--out runs/spa-eng] [--resume]
//   atencion-translate translate --model runs/spa-eng "¿Cuál es tu nombre?"   (or lines on stdin)
//   atencion-translate eval --model runs/spa-eng [--data pairs.tsv] [--beam 4]
//   atencion-translate show --model runs/spa-eng [--html] "¿Cuál es tu nombre?" [more sentences]
//   atencion-translate serve --model runs/spa-eng [--host 127.0.0.1] [--port 8080]
#include <exception>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "nn/distributed.h"
#include "tensor/threads.h"
#include "translate/cli_checks.h"
#include "translate/commands/commands.h"

using namespace atencion::examples::translate;
namespace nn = atencion::nn;

int main(int argc, char** argv) {
  // Under mpirun, this process is one of N (docs/13-data-parallel.md); otherwise rank 0 of 1.
  nn::distributed::Communicator communicator;
  CLI::App app{"atencion-translate: a Spanish→English Transformer, trained on your CPU"};
  app.require_subcommand(1);
  app.fallthrough();  // --threads before or after the subcommand
  // Misuse is refused in one line, before any work (docs/12-translation.md#the-program).
  app.failure_message([](const CLI::App*, const CLI::Error& error) {
    return std::string("atencion-translate: ") + error.what() + " (see --help)\n";
  });
  int threads = 0;
  app.add_option("--threads", threads, "threads for the kernels (default: OMP_NUM_THREADS or all cores)")
      ->check(CLI::Range(int64_t{1}, kMostThreads));
  const Subcommand subcommands[] = {add_train_command(app, communicator), add_translate_command(app),
                                    add_eval_command(app), add_show_command(app),
                                    add_serve_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);  // prints the message (or --help)
    // A process that stopped before the others would leave them waiting in a collective.
    if (status != 0 && communicator.size() > 1)
      communicator.abort(std::string("atencion-translate: ") + error.what(), status);
    return status;
  }
  try {
    if (threads > 0) atencion::set_num_threads(threads);
    for (const Subcommand& subcommand : subcommands)
      if (*subcommand.command) subcommand.run();
  } catch (const std::exception& error) {
    // The other processes may be waiting for this one: end them all, with the message.
    if (communicator.size() > 1)
      communicator.abort(std::string("atencion-translate: ") + error.what());
    std::cerr << "atencion-translate: " << error.what() << "\n";
    return 1;
  }
  return 0;
}

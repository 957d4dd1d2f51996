// examples/translate/main.cpp — `atencion-translate`: train, translate, eval, show, serve (one file
// each in commands/).
// Lesson: docs/12-translation.md
//
//   atencion-translate train [--minutes 9] [--data pairs.tsv] [--out runs/spa-eng] [--resume]
//   atencion-translate translate --model runs/spa-eng "¿Cuál es tu nombre?"   (or lines on stdin)
//   atencion-translate eval --model runs/spa-eng [--data pairs.tsv] [--beam 4]
//   atencion-translate show --model runs/spa-eng [--html] "¿Cuál es tu nombre?" [more sentences]
//   atencion-translate serve --model runs/spa-eng [--host 127.0.0.1] [--port 8080]
#include <vector>

#include "base/cli/program.h"
#include "nn/distributed.h"
#include "translate/commands/commands.h"

using namespace atencion::examples;
using namespace atencion::examples::translate;
namespace nn = atencion::nn;

int main(int argc, char** argv) {
  // Under mpirun, this process is one of N (docs/13-data-parallel.md); otherwise rank 0 of 1.
  nn::distributed::Communicator communicator;
  Program program("atencion-translate", "atencion-translate: a Spanish→English Transformer, trained on your CPU");
  CLI::App& app = program.app();
  const std::vector<Subcommand> subcommands = {
      add_train_command(app, communicator), add_translate_command(app), add_eval_command(app),
      add_show_command(app), add_serve_command(app)};
  // Training on N processes waits in collectives: a process that fails ends them all.
  return program.run(argc, argv, subcommands, &communicator);
}

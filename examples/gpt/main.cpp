// examples/gpt/main.cpp — `atencion-gpt`: a GPT you train here in minutes (train), sample from
// (sample), score (eval) and look inside (show); also GPT-2's published weights (--gpt2).
// Lesson: docs/15-gpt.md
#include <vector>

#include "base/cli/program.h"
#include "gpt/commands/commands.h"
#include "nn/distributed.h"

using namespace atencion::examples;
using namespace atencion::examples::gpt;
namespace nn = atencion::nn;

int main(int argc, char** argv) {
  // Under mpirun, this process is one of N (docs/13-data-parallel.md); otherwise rank 0 of 1.
  nn::distributed::Communicator communicator;
  Program program("atencion-gpt",
                  "atencion-gpt: a decoder-only Transformer (GPT), trained on your CPU");
  CLI::App& app = program.app();
  const std::vector<Subcommand> subcommands = {add_train_command(app, communicator),
                                               add_sample_command(app), add_eval_command(app),
                                               add_show_command(app), add_serve_command(app),
                                               add_merge_command(app)};
  // Training on N processes waits in collectives: a process that fails ends them all.
  return program.run(argc, argv, subcommands, &communicator);
}

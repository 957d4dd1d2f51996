// examples/gpt/main.cpp — `atencion-gpt`: a GPT you train here in minutes (train), sample from
// (sample), score (eval) and look inside (show); also GPT-2's published weights (--gpt2).
// Lesson: docs/15-gpt.md
#include <iostream>

#include "CLI/CLI.hpp"
#include "gpt/commands/commands.h"
#include "tensor/threads.h"

using namespace atencion::examples::gpt;
namespace nn = atencion::nn;

int main(int argc, char** argv) {
  nn::distributed::Communicator communicator;
  CLI::App app{"atencion-gpt: a decoder-only Transformer (GPT), trained on your CPU"};
  app.require_subcommand(1);
  app.fallthrough();  // --threads before or after the subcommand
  app.failure_message([](const CLI::App*, const CLI::Error& error) {
    return std::string("atencion-gpt: ") + error.what() + " (see --help)\n";
  });
  int threads = 0;
  app.add_option("--threads", threads, "threads for the kernels (default: OMP_NUM_THREADS or all cores)")
      ->check(CLI::Range(1, 1024));
  const Subcommand subcommands[] = {add_train_command(app, communicator), add_sample_command(app),
                                    add_eval_command(app), add_show_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  try {
    if (threads > 0) atencion::set_num_threads(threads);
    for (const Subcommand& subcommand : subcommands)
      if (*subcommand.command) subcommand.run();
  } catch (const std::exception& error) {
    std::cerr << "atencion-gpt: " << error.what() << "\n";
    return 1;
  }
  return 0;
}

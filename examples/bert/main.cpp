// examples/bert/main.cpp — `atencion-bert`: train, fill-mask, eval, show, tokenize, serve (a file each in
// commands/). Lesson: docs/16-bert.md
//
//   atencion-bert train [--minutes 5] [--text FILE] [--out runs/bert] [--resume]
//   atencion-bert fill-mask --model runs/bert "Me gusta [MASK] libros."   (or lines on stdin)
//   atencion-bert eval --model runs/bert [--text FILE]
//   atencion-bert show --model runs/bert "El perro come."
//   atencion-bert tokenize --model runs/bert [--ids] "El perro come."     (or lines on stdin)
//   atencion-bert serve --model runs/bert [--host 127.0.0.1] [--port 8080]   (the live page)
//   any of the last four with --bert DIR: bert-base-uncased as Hugging Face publishes it
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bert/commands/commands.h"
#include "nn/distributed.h"
#include "tensor/threads.h"

using namespace atencion::examples::bert;
namespace nn = atencion::nn;

int main(int argc, char** argv) {
  nn::distributed::Communicator communicator;
  CLI::App app{"atencion-bert: an encoder-only masked language model, trained on your CPU"};
  app.require_subcommand(1);
  app.fallthrough();
  app.failure_message([](const CLI::App*, const CLI::Error& error) {
    return std::string("atencion-bert: ") + error.what() + " (see --help)\n";
  });
  int threads = 0;
  app.add_option("--threads", threads, "threads for the kernels (default: OMP_NUM_THREADS or all cores)")
      ->check(CLI::Range(1, 1024));
  std::vector<Subcommand> subcommands = {add_train_command(app, communicator),
                                         add_fill_mask_command(app), add_eval_command(app),
                                         add_show_command(app), add_tokenize_command(app)};
#ifdef ATENCION_BERT_SERVE
  subcommands.push_back(add_serve_command(app));
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);
    if (status != 0 && communicator.size() > 1)
      communicator.abort(std::string("atencion-bert: ") + error.what(), status);
    return status;
  }
  try {
    if (threads > 0) atencion::set_num_threads(threads);
    for (const Subcommand& subcommand : subcommands)
      if (*subcommand.command) subcommand.run();
  } catch (const std::exception& error) {
    if (communicator.size() > 1) communicator.abort(std::string("atencion-bert: ") + error.what());
    std::cerr << "atencion-bert: " << error.what() << "\n";
    return 1;
  }
  return 0;
}

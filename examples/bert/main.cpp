// examples/bert/main.cpp — `atencion-bert`: train, fill-mask, eval, show, tokenize, serve, finetune,
// pair-task, classify (a file each in
// commands/). Lesson: docs/16-bert.md
//
//   atencion-bert train [--minutes 5] [--text FILE] [--out runs/bert] [--resume]
//   atencion-bert fill-mask --model runs/bert "Me gusta [MASK] libros."   (or lines on stdin)
//   atencion-bert eval --model runs/bert [--text FILE]
//   atencion-bert show --model runs/bert "El perro come."
//   atencion-bert tokenize --model runs/bert [--ids] "El perro come."     (or lines on stdin)
//   atencion-bert serve --model runs/bert [--host 127.0.0.1] [--port 8080]   (the live page)
//   any of the last four with --bert DIR: bert-base-uncased as Hugging Face publishes it
//   atencion-bert pair-task --out data/pair-task      (the English-Spanish pair task's files)
//   atencion-bert finetune --init-from runs/bert [--lora-rank 8] --out runs/bert-classifier
//   atencion-bert classify --model runs/bert-classifier ["English." "Spanish."]
//   (docs/18-finetuning.md)
#include <vector>

#include "base/cli/program.h"
#include "bert/commands/commands.h"
#include "nn/distributed.h"

using namespace atencion::examples;
using namespace atencion::examples::bert;
namespace nn = atencion::nn;

int main(int argc, char** argv) {
  nn::distributed::Communicator communicator;
  Program program("atencion-bert",
                  "atencion-bert: an encoder-only masked language model, trained on your CPU");
  CLI::App& app = program.app();
  const std::vector<Subcommand> subcommands = {
      add_train_command(app, communicator), add_fill_mask_command(app), add_eval_command(app),
      add_show_command(app),                add_tokenize_command(app),  add_serve_command(app),
      add_finetune_command(app, communicator), add_pair_task_command(app),
      add_classify_command(app)};
  return program.run(argc, argv, subcommands, &communicator);
}

// examples/bert/commands/commands.h — the subcommands of `atencion-bert`, one file each:
// train.cpp, fill_mask.cpp, eval.cpp, show.cpp, tokenize.cpp, serve.cpp (where libmicrohttpd is),
// finetune.cpp (finetune, pair-task), classify.cpp.
// Lesson: docs/16-bert.md#the-program
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "base/cli/program.h"
#include "bert/masked_lm.h"
#include "nn/distributed.h"

namespace atencion::examples::bert {

Subcommand add_train_command(CLI::App& app, nn::distributed::Communicator& communicator);
Subcommand add_fill_mask_command(CLI::App& app);
Subcommand add_eval_command(CLI::App& app);
Subcommand add_show_command(CLI::App& app);
Subcommand add_tokenize_command(CLI::App& app);
Subcommand add_serve_command(CLI::App& app);  // bert/live.h
// finetune.cpp (finetune, pair-task) and classify.cpp: docs/18-finetuning.md
Subcommand add_finetune_command(CLI::App& app, nn::distributed::Communicator& communicator);
Subcommand add_pair_task_command(CLI::App& app);
Subcommand add_classify_command(CLI::App& app);

// Which model a command reads: a run directory of `train` (--model) or a directory in Hugging
// Face's layout (--bert), which wins when given.
struct ModelSource {
  std::string model_dir = "runs/bert";
  std::string bert_dir;
};
void add_model_source_options(CLI::App* command, ModelSource& source);
MaskedLanguageModel load_model(const ModelSource& source);

}  // namespace atencion::examples::bert

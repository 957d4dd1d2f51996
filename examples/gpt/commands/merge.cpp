// examples/gpt/commands/merge.cpp — `atencion-gpt merge`: a LoRA fine-tune's adapters folded into
// its weights (gpt/fine_tune.h), written as a plain checkpoint that needs no base to load.
// Lesson: docs/18-finetuning.md#the-gpt-instruction-fine-tuning
#include <cstdio>
#include <memory>

#include "gpt/commands/commands.h"
#include "gpt/fine_tune.h"

namespace atencion::examples::gpt {

Subcommand add_merge_command(CLI::App& app) {
  auto model_dir = std::make_shared<std::string>();
  auto out_dir = std::make_shared<std::string>();
  CLI::App* command =
      app.add_subcommand("merge", "fold a LoRA fine-tune's adapters into its weights");
  command->add_option("--model", *model_dir, "a LoRA fine-tune's run directory, or its step-N")
      ->required();
  command->add_option("--out", *out_dir, "where the merged checkpoint goes (a run directory)")
      ->required();
  return {command, [model_dir, out_dir] {
            std::printf("merged: %s\n", merge_fine_tune(*model_dir, *out_dir).c_str());
          }};
}

}  // namespace atencion::examples::gpt

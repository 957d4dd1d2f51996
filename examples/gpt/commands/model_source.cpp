// examples/gpt/commands/model_source.cpp — --model and --gpt2, as sample, eval and show take them.
#include "base/cli/validators.h"
#include "gpt/commands/commands.h"

namespace atencion::examples::gpt {

void add_model_source_options(CLI::App* command, ModelSource& source) {
  auto* model = command->add_option("--model", source.model_dir,
                                    "a run directory of train, or one of its step-N")
                    ->capture_default_str();
  command->add_option("--gpt2", source.gpt2_dir,
                      "a directory with GPT-2's model.safetensors, config.json and tokenizer files")
      ->check(CLI::ExistingDirectory)->excludes(model);
}

}  // namespace atencion::examples::gpt

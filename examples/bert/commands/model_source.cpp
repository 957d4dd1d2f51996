// examples/bert/commands/model_source.cpp — --model or --bert, as every reading command takes them.
#include "base/cli/validators.h"
#include "bert/commands/commands.h"

namespace atencion::examples::bert {

void add_model_source_options(CLI::App* command, ModelSource& source) {
  command->add_option("--model", source.model_dir, "run directory of `atencion-bert train`")
      ->capture_default_str();
  command->add_option("--bert", source.bert_dir,
                      "a directory as Hugging Face publishes bert-base-uncased (model.safetensors, "
                      "vocab.txt, config.json)")
      ->check(CLI::ExistingDirectory);
}

MaskedLanguageModel load_model(const ModelSource& source) {
  if (!source.bert_dir.empty()) return MaskedLanguageModel::from_hugging_face(source.bert_dir);
  return MaskedLanguageModel::from_checkpoint(load_checkpoint(source.model_dir));
}

}  // namespace atencion::examples::bert

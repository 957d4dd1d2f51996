// examples/gpt/commands/model_source.cpp — --model, --gpt2 and --dtype, as sample, eval, show and
// serve take them.
#include "base/cli/validators.h"
#include "gpt/commands/commands.h"
#include "nn/linear.h"
#include "tensor/gemm_bfloat16.h"

namespace atencion::examples::gpt {

void add_model_source_options(CLI::App* command, ModelSource& source) {
  auto* model = command->add_option("--model", source.model_dir,
                                    "a run directory of train, or one of its step-N")
                    ->capture_default_str();
  command->add_option("--gpt2", source.gpt2_dir,
                      "a directory with GPT-2's model.safetensors, config.json and tokenizer files")
      ->check(CLI::ExistingDirectory)->excludes(model);
  command->add_option("--dtype", source.dtype,
                      "the weights' type for inference: float32, or bf16 (bfloat16: half the "
                      "bytes, about twice the tokens/s; docs/15-gpt.md#bfloat16-weights)")
      ->capture_default_str()->check(CLI::IsMember({"float32", "bf16"}));
}

LanguageModel load_model(const ModelSource& source, const std::string& command) {
  const bool bfloat16 = source.dtype == "bf16";
  if (bfloat16) check_bfloat16_support(command + " --dtype bf16");
  LanguageModel loaded = load_language_model(source.model_dir, source.gpt2_dir);
  if (bfloat16) loaded.model->use_bfloat16_weights();
  return loaded;
}

void pack_for_decoding(GPT& model) {
  // The tied head reads the token embedding, not a Linear: its dtype and bfloat16 are GPT's.
  if (model.uses_bfloat16_weights() || model.token_embedding->weight.dtype() != DType::Float32 ||
      !nn::can_pack_weights(model))
    return;
  model.use_packed_weights();
}

}  // namespace atencion::examples::gpt

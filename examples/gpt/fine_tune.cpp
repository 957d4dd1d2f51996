// examples/gpt/fine_tune.cpp — see fine_tune.h.
#include "gpt/fine_tune.h"

#include <stdexcept>

#include "base/finetune/adapters.h"
#include "base/io/json_fields.h"
#include "nn/lora.h"

namespace atencion::examples::gpt {

void begin_fine_tune(LanguageModel& start, const BaseSource& base, const FineTuneSettings& settings,
                     uint64_t seed) {
  start.finetune = {{"finetune", settings}, {"base", base_record(*start.model, base.where())}};
  apply_lora(*start.model, settings, seed);
}

LanguageModel load_adapted(const CheckpointData& checkpoint, const FineTuneSettings& settings,
                           const std::string& where) {
  const nlohmann::json& run = checkpoint.config.contains("run") ? checkpoint.config.at("run")
                                                                : nlohmann::json::object();
  BaseSource base;
  try {
    base = {string_field(run, "init_from"), string_field(run, "gpt2")};
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(where + "/config.json: run: " + error.what());
  }
  if (base.where().empty())
    throw std::runtime_error(where + "/config.json: LoRA adapters, but no base to put them on "
                             "(run: \"init_from\" and \"gpt2\" are empty)");
  if (!checkpoint.config.contains("base"))
    throw std::runtime_error(where + "/config.json: LoRA adapters without a \"base\" record");
  LanguageModel result = load_language_model(base.init_from, base.gpt2_dir);
  check_same_base(checkpoint.config.at("base"), *result.model, base.where(), where);
  const GPTConfig config = config_from_json(checkpoint.config.at("model"), where);
  if (config.dropout != result.model->config().dropout) set_dropout(result, config.dropout);
  apply_lora(*result.model, settings, 0);  // each A is replaced by the checkpoint's
  load_fine_tuned_tensors(*result.model, checkpoint.model, settings, where + "/model.safetensors");
  result.model->eval();
  result.finetune = {{"finetune", checkpoint.config.at("finetune")},
                     {"base", checkpoint.config.at("base")}};
  return result;
}

void set_dropout(LanguageModel& language_model, double dropout) {
  GPTConfig config = language_model.model->config();
  config.dropout = dropout;
  Generator generator = Generator::skipping_tensor_draws();  // every weight is replaced
  auto model = std::make_shared<GPT>(config, generator);
  model->load_state_dict(language_model.model->state_dict());
  language_model.model = std::move(model);
}

std::string merge_fine_tune(const std::string& model_dir, const std::string& out_dir) {
  const CheckpointData checkpoint = load_checkpoint(model_dir);
  LanguageModel language_model = LanguageModel::from_checkpoint(checkpoint);
  const int64_t folded = nn::merge_lora(*language_model.model);
  if (folded == 0)
    throw std::invalid_argument(checkpoint.directory + ": no LoRA adapters to merge (a full "
                                "fine-tune's checkpoint is already plain weights)");
  language_model.finetune = nullptr;  // plain weights now: no base needed to load them
  CheckpointData merged = language_model.to_checkpoint();
  merged.config["run"] = checkpoint.config.at("run");
  merged.config["merged_from"] = checkpoint.directory;
  const int64_t step =
      checkpoint.trainer.is_object() && checkpoint.trainer.contains("step")
          ? checkpoint.trainer.at("step").get<int64_t>()
          : 0;
  return save_checkpoint(out_dir, step, merged);
}

}  // namespace atencion::examples::gpt

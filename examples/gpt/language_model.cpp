// examples/gpt/language_model.cpp — see language_model.h.
#include "gpt/language_model.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "autograd/variable.h"
#include "base/finetune/adapters.h"
#include "gpt/fine_tune.h"
#include "gpt/gpt2_weights.h"
#include "nn/eval_scope.h"
#include "nn/loss.h"

namespace atencion::examples::gpt {

LanguageModel LanguageModel::from_checkpoint(const CheckpointData& checkpoint) {
  const std::string where = checkpoint.directory.empty() ? "checkpoint" : checkpoint.directory;
  if (!checkpoint.config.contains("model") || !checkpoint.config.contains("tokenizer"))
    throw std::runtime_error(where + "/config.json: not a GPT's checkpoint (no \"model\" and "
                             "\"tokenizer\"; atencion-gpt train writes them)");
  const GPTConfig config = config_from_json(checkpoint.config.at("model"), where);
  if (checkpoint.config.contains("finetune")) {
    const FineTuneSettings settings =
        read_finetune_settings(checkpoint.config, where + "/config.json");
    if (settings.uses_lora()) return load_adapted(checkpoint, settings, where);
  }
  // Before the model is built: sizes that do not match the weights could ask for gigabytes.
  check_expected_tensors(header_of(checkpoint.model), expected_tensors(config),
                         where + "/model.safetensors");
  // Built without an initialisation: every weight is replaced.
  Generator generator = Generator::skipping_tensor_draws();
  auto model = std::make_shared<GPT>(config, generator);
  try {
    model->load_state_dict(checkpoint.model);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(where + "/model.safetensors: " + error.what());
  }
  model->eval();
  const nlohmann::json& kind = checkpoint.config.at("tokenizer");
  if (!kind.is_string()) throw std::runtime_error(where + "/config.json: \"tokenizer\" is not a string");
  std::shared_ptr<const TextTokenizer> tokenizer = [&] {
    try {
      return TextTokenizer::from_checkpoint(kind.get<std::string>(), checkpoint.files);
    } catch (const std::exception& error) {
      throw std::runtime_error(where + ": " + error.what());
    }
  }();
  if (tokenizer->vocab_size() != config.vocab)
    throw std::runtime_error(where + ": the tokenizer has " +
                             std::to_string(tokenizer->vocab_size()) + " ids, the model " +
                             std::to_string(config.vocab));
  LanguageModel result{std::move(model), std::move(tokenizer), nullptr};
  if (checkpoint.config.contains("finetune"))  // a full fine-tune: its record goes on
    result.finetune = {{"finetune", checkpoint.config.at("finetune")},
                       {"base", checkpoint.config.value("base", nlohmann::json::object())}};
  return result;
}

CheckpointData LanguageModel::to_checkpoint() const {
  CheckpointData data;
  data.config["model"] = config_to_json(model->config());
  data.config["tokenizer"] = tokenizer->kind_name();
  data.model = model->state_dict();
  data.files = tokenizer->files();
  if (!finetune.is_null()) {  // a fine-tune: its record, and with LoRA only what it trained
    data.config["finetune"] = finetune.at("finetune");
    data.config["base"] = finetune.at("base");
    data.model = fine_tuned_tensors(*model, read_finetune_settings(finetune, "fine-tune"));
  }
  return data;
}

LanguageModel::Score LanguageModel::score(
    const std::vector<TokenBatch>& batches,
    const std::function<void(size_t, const Score&)>& after_batch) const {
  nn::EvalScope evaluating(*model);
  Score total;
  for (size_t i = 0; i < batches.size(); ++i) {
    const TokenBatch& batch = batches[i];
    // the loss is a mean over the counted targets (all of them, or an answer's: instructions.h)
    const int64_t counted = nn::counted_rows(batch.targets).count;
    total.nats += model->loss(batch.ids, batch.targets).item() * static_cast<double>(counted);
    total.predictions += counted;
    if (after_batch) after_batch(i + 1, total);
  }
  return total;
}

LanguageModel load_language_model(const std::string& model_dir, const std::string& gpt2_dir) {
  if (!gpt2_dir.empty()) {
    Gpt2Bpe bpe = Gpt2Bpe::load(gpt2_dir);
    std::shared_ptr<GPT> model = load_gpt2(gpt2_dir);
    // A tokenizer one entry short would let sampling draw an id it cannot decode.
    if (bpe.vocab_size() != model->config().vocab)
      throw std::runtime_error(bpe.vocab_file() + ": " + std::to_string(bpe.vocab_size()) +
                               " tokens, but the model's wte.weight has " +
                               std::to_string(model->config().vocab) + " rows");
    return LanguageModel{std::move(model), TextTokenizer::gpt2(std::move(bpe)), nullptr};
  }
  return LanguageModel::from_checkpoint(load_checkpoint(model_dir));
}

TextMeasures measures(const LanguageModel::Score& score, int64_t bytes) {
  TextMeasures result;
  result.loss = score.predictions > 0 ? score.nats / static_cast<double>(score.predictions) : 0;
  result.perplexity = std::exp(result.loss);
  result.bits_per_byte =
      bytes > 0 ? score.nats / (static_cast<double>(bytes) * std::numbers::ln2) : 0;
  return result;
}

}  // namespace atencion::examples::gpt

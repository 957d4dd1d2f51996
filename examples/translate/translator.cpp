// examples/translate/translator.cpp — see translator.h.
#include "translate/translator.h"

#include <limits>
#include <stdexcept>

#include "base/io/json_fields.h"
#include "nlohmann/json.hpp"
#include "nn/loss.h"
#include "nn/masks.h"

namespace atencion::examples::translate {

BatchTensors to_tensors(const Batch& batch) {
  BatchTensors tensors;
  tensors.source = Tensor::from_ids(batch.source_ids, batch.source_shape());
  tensors.target_input = Tensor::from_ids(batch.target_input_ids, batch.target_shape());
  tensors.target_output = Tensor::from_ids(batch.target_output_ids, batch.target_shape());
  tensors.source_mask = nn::padding_mask(batch.source_lengths, batch.source_length);
  tensors.target_mask = nn::causal_mask(batch.target_length);
  return tensors;
}

Translator Translator::create(nn::TransformerConfig config, Tokenizer source_tokenizer,
                              Tokenizer target_tokenizer, uint64_t seed) {
  config.src_vocab = source_tokenizer.vocab_size();
  config.tgt_vocab = target_tokenizer.vocab_size();
  config.padding_idx = Tokenizer::pad_id;
  Generator generator(seed);
  auto model = std::make_shared<nn::Transformer>(config, generator);
  return Translator{config, std::move(model), std::move(source_tokenizer),
                    std::move(target_tokenizer)};
}

void check_config_matches_weights(const nn::TransformerConfig& config, const NamedTensors& weights,
                                  const std::string& where) {
  auto refuse = [&](const std::string& problem) {
    throw std::invalid_argument(where + ": config.json does not match model.safetensors: " +
                                problem);
  };
  auto shape_of = [&](const std::string& name) -> const Shape* {
    for (const auto& [weight_name, tensor] : weights)
      if (weight_name == name) return &tensor.shape();
    return nullptr;
  };
  // The sizes each weight's shape fixes: [rows, columns] by config field.
  auto expect = [&](const std::string& name, int64_t rows, const char* rows_field,
                    int64_t columns) {
    const Shape* shape = shape_of(name);
    if (shape == nullptr) refuse("no tensor '" + name + "'");
    if (*shape != Shape{rows, columns})
      refuse(std::string(rows_field) + " " + std::to_string(rows) + ", d_model " +
             std::to_string(columns) + ", but '" + name + "' has shape " +
             shape_to_string(*shape));
  };
  expect("src_embedding.weight", config.src_vocab, "src_vocab", config.d_model);
  expect("tgt_embedding.weight", config.tgt_vocab, "tgt_vocab", config.d_model);
  using Stack = std::pair<std::string, int64_t>;
  for (const auto& [stack, layers] :
       {Stack{"encoder", config.encoder_layers}, Stack{"decoder", config.decoder_layers}}) {
    const std::string last = stack + ".layers." + std::to_string(layers - 1) + ".";
    const std::string past = stack + ".layers." + std::to_string(layers) + ".";
    if (layers < 1 || shape_of(last + "norm1.weight") == nullptr ||
        shape_of(past + "norm1.weight") != nullptr)
      refuse(stack + "_layers " + std::to_string(layers) + " is not the number of " + stack +
             " layers in the weights");
    expect(stack + ".layers.0.feed_forward.linear1.weight", config.d_ff, "d_ff", config.d_model);
  }
  if ((shape_of("output_projection.weight") == nullptr) != config.tie_target_embeddings)
    refuse(std::string("tie_target_embeddings is ") +
           (config.tie_target_embeddings ? "true, but the weights have"
                                         : "false, but the weights have no") +
           " 'output_projection.weight'");
  // The positional-encoding table (max_len × d_model) is computed, not stored: bound it.
  if (config.max_len < 1 || config.max_len > kLongestMaxLen)
    refuse("max_len " + std::to_string(config.max_len) + " is not in [1, " +
           std::to_string(kLongestMaxLen) + "]");
  if (!(config.dropout >= 0 && config.dropout < 1))
    refuse("dropout " + std::to_string(config.dropout) + " is not in [0, 1)");
}

Translator Translator::from_checkpoint(const CheckpointData& checkpoint) {
  const std::string where = checkpoint.directory.empty() ? "checkpoint" : checkpoint.directory;
  if (!checkpoint.config.contains("model"))
    throw std::runtime_error(where + "/config.json: no \"model\" section");
  nn::TransformerConfig config = config_from_json(checkpoint.config.at("model"));
  // Before the model is built: sizes that do not match the weights could ask for gigabytes.
  check_config_matches_weights(config, checkpoint.model, where);
  Generator generator(0);  // the weights are replaced by the checkpoint's
  auto model = std::make_shared<nn::Transformer>(config, generator);
  try {
    model->load_state_dict(checkpoint.model);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(where + ": model.safetensors does not match config.json: " +
                                error.what());
  }
  model->eval();
  auto tokenizer = [&](const std::string& file) {
    const auto found = checkpoint.files.find(file);
    if (found == checkpoint.files.end())
      throw std::runtime_error(where + "/" + file + ": missing (a translator's checkpoint holds "
                               "source.model and target.model)");
    try {
      return Tokenizer::from_serialized(found->second);
    } catch (const std::exception& error) {
      throw std::runtime_error(where + "/" + file + ": " + error.what());
    }
  };
  return Translator{config, std::move(model),
                    tokenizer("source.model"), tokenizer("target.model")};
}

Variable Translator::logits(const BatchTensors& batch) const {
  return model->forward(batch.source, batch.target_input, batch.source_mask, batch.target_mask,
                        batch.source_mask);
}

Variable Translator::loss(const BatchTensors& batch, double label_smoothing) const {
  nn::CrossEntropyOptions options;
  options.ignore_index = Tokenizer::pad_id;
  options.label_smoothing = label_smoothing;
  // = cross_entropy(logits(batch), ...), without holding the logits (nn/loss.h)
  const Variable memory = model->encode(batch.source, batch.source_mask);
  const Variable states =
      model->decode_states(batch.target_input, memory, batch.target_mask, batch.source_mask);
  return model->projected_cross_entropy(states, batch.target_output, options);
}

CheckpointData Translator::to_checkpoint() const {
  CheckpointData data;
  data.config["model"] = config_to_json(config);
  data.model = model->state_dict();
  data.files["source.model"] = source_tokenizer.serialized();
  data.files["target.model"] = target_tokenizer.serialized();
  return data;
}

nlohmann::json config_to_json(const nn::TransformerConfig& config) {
  return {{"src_vocab", config.src_vocab},
          {"tgt_vocab", config.tgt_vocab},
          {"d_model", config.d_model},
          {"heads", config.heads},
          {"encoder_layers", config.encoder_layers},
          {"decoder_layers", config.decoder_layers},
          {"d_ff", config.d_ff},
          {"dropout", config.dropout},
          {"max_len", config.max_len},
          {"norm_first", config.norm_first},
          {"tie_target_embeddings", config.tie_target_embeddings},
          {"padding_idx", config.padding_idx}};
}

nn::TransformerConfig config_from_json(const nlohmann::json& json) {
  // Each field as a save writes it: sizes are whole numbers of at least 1 (16.5 is refused,
  // not read as 16). Whether they fit the weights is check_config_matches_weights' job.
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  nn::TransformerConfig config;
  try {
    config.src_vocab = integer_field(json, "src_vocab", 1, kMost);
    config.tgt_vocab = integer_field(json, "tgt_vocab", 1, kMost);
    config.d_model = integer_field(json, "d_model", 1, kMost);
    config.heads = integer_field(json, "heads", 1, kMost);
    config.encoder_layers = integer_field(json, "encoder_layers", 1, kMost);
    config.decoder_layers = integer_field(json, "decoder_layers", 1, kMost);
    config.d_ff = integer_field(json, "d_ff", 1, kMost);
    config.dropout = number_field(json, "dropout", 0.0, 0.99);  // the range --dropout accepts
    config.max_len = integer_field(json, "max_len", 1, kMost);
    config.norm_first = boolean_field(json, "norm_first");
    config.tie_target_embeddings = boolean_field(json, "tie_target_embeddings");
    config.padding_idx = integer_field(json, "padding_idx", -1, kMost);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(std::string("config.json: bad model config: ") + error.what());
  }
  return config;
}

}  // namespace atencion::examples::translate

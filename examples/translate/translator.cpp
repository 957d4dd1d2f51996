// examples/translate/translator.cpp — see translator.h.
#include "translate/translator.h"

#include <limits>
#include <stdexcept>

#include "base/io/expected_tensors.h"
#include "base/io/json_fields.h"
#include "nlohmann/json.hpp"
#include "nn/loss.h"
#include "nn/masks.h"
#include "tensor/packed_rows.h"
#include "nn/linear.h"

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

ExpectedTensors expected_tensors(const nn::TransformerConfig& c) {
  ExpectedTensors tensors = {{{"src_embedding.weight"}, {c.src_vocab, c.d_model}},
                             {{"tgt_embedding.weight"}, {c.tgt_vocab, c.d_model}}};
  for (int64_t i = 0; i < c.encoder_layers; ++i)
    add_transformer_layer(tensors, "encoder.layers." + std::to_string(i) + ".", c.d_model, c.d_ff);
  for (int64_t i = 0; i < c.decoder_layers; ++i)
    add_transformer_layer(tensors, "decoder.layers." + std::to_string(i) + ".", c.d_model, c.d_ff,
                          /*cross_attention=*/true);
  if (c.norm_first || c.final_norm) {
    add_layer_norm(tensors, "encoder.norm", c.d_model);
    add_layer_norm(tensors, "decoder.norm", c.d_model);
  }
  if (!c.tie_target_embeddings) add_linear(tensors, "output_projection", c.tgt_vocab, c.d_model);
  return tensors;
}

void pack_weights_for_inference(const Translator& translator) {
  if (nn::can_pack_weights(*translator.model))
    nn::use_packed_weights(*translator.model, gemm_panel_rows());  // batches of rows, any kernel
}

Translator Translator::from_checkpoint(const CheckpointData& checkpoint) {
  const std::string where = checkpoint.directory.empty() ? "checkpoint" : checkpoint.directory;
  if (!checkpoint.config.contains("model"))
    throw std::runtime_error(where + "/config.json: no \"model\" section");
  nn::TransformerConfig config = config_from_json(checkpoint.config.at("model"));
  // Before the model is built: sizes that do not match the weights could ask for gigabytes.
  check_expected_tensors(header_of(checkpoint.model), expected_tensors(config),
                         where + "/model.safetensors");
  // Built without an initialisation: every weight is replaced by the checkpoint's.
  Generator generator = Generator::skipping_tensor_draws();
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

const ConfigFields<nn::TransformerConfig>& config_fields() {
  using Config = nn::TransformerConfig;
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  static const ConfigFields<Config> fields{
      .integers = {{"src_vocab", &Config::src_vocab, 1, kMost},
                   {"tgt_vocab", &Config::tgt_vocab, 1, kMost},
                   {"d_model", &Config::d_model, 1, kMost},
                   {"heads", &Config::heads, 1, kMost},
                   {"encoder_layers", &Config::encoder_layers, 1, 1024},
                   {"decoder_layers", &Config::decoder_layers, 1, 1024},
                   {"d_ff", &Config::d_ff, 1, kMost},
                   {"max_len", &Config::max_len, 1, kLongestMaxLen},
                   {"padding_idx", &Config::padding_idx, -1, kMost}},
      .numbers = {{"dropout", &Config::dropout, 0.0, 0.99, false}},  // what --dropout accepts
      .booleans = {{"norm_first", &Config::norm_first},
                   {"tie_target_embeddings", &Config::tie_target_embeddings}}};
  return fields;
}

nlohmann::json config_to_json(const nn::TransformerConfig& config) {
  return config_fields().to_json(config);
}

nn::TransformerConfig config_from_json(const nlohmann::json& json) {
  // Whether the sizes fit the weights is expected_tensors' and check_expected_tensors' job.
  try {
    return config_fields().from_json(json);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(std::string("config.json: bad model config: ") + error.what());
  }
}

}  // namespace atencion::examples::translate

// examples/gpt/gpt.cpp — see gpt.h. Lesson: docs/15-gpt.md#the-model
#include "gpt/gpt.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "autograd/ops.h"
#include "base/io/json_fields.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "nn/masks.h"

namespace atencion::examples::gpt {
namespace {

}  // namespace

GPT::GPT(const GPTConfig& c, Generator& generator) : config_(c) {
  token_embedding =
      register_module("token_embedding", std::make_shared<nn::Embedding>(c.vocab, c.d_model, generator));
  position_embedding = register_module(
      "position_embedding", std::make_shared<nn::Embedding>(c.context, c.d_model, generator));
  dropout = register_module("dropout", std::make_shared<nn::Dropout>(c.dropout, generator));
  nn::TransformerLayerConfig block{.d_model = c.d_model,
                                   .heads = c.heads,
                                   .d_ff = 4 * c.d_model,
                                   .dropout = c.dropout,
                                   .norm_first = true,
                                   .activation = nn::Activation::GELUTanh};
  for (int64_t i = 0; i < c.layers; ++i)
    layers.push_back(register_module("layers." + std::to_string(i),
                                     std::make_shared<nn::EncoderLayer>(block, generator)));
  final_norm = register_module("final_norm",
                               std::make_shared<nn::LayerNorm>(c.d_model));
  // GPT-2's initialisation (gpt.h); none for a model about to be loaded.
  if (generator.skips_tensor_draws()) return;
  const double residual_std = 0.02 / std::sqrt(2.0 * static_cast<double>(c.layers));
  for (auto& [name, parameter] : named_parameters()) {
    Variable handle = parameter;
    if (name.ends_with(".bias")) {
      if (name.find("norm") == std::string::npos)
        handle.mutable_value() = Tensor::zeros(parameter.shape(), parameter.dtype());
      continue;
    }
    if (parameter.dim() < 2) continue;  // LayerNorm weights stay 1
    const bool ends_branch = name.ends_with("out_proj.weight") || name.ends_with("linear2.weight");
    const double std = ends_branch ? residual_std : 0.02;
    handle.mutable_value() = mul(randn(parameter.shape(), generator, parameter.dtype()), std);
  }
}

std::string GPT::type_name() const {
  return "GPT(vocab=" + std::to_string(config_.vocab) + ", context=" +
         std::to_string(config_.context) + ", d_model=" + std::to_string(config_.d_model) +
         ", heads=" + std::to_string(config_.heads) + ", layers=" + std::to_string(config_.layers) +
         ")";
}

Variable GPT::hidden_states(const Tensor& ids, std::span<nn::KeyValueCache> cache,
                            nn::AttentionObserver* observer) {
  if (ids.dim() != 2 || ids.dtype() != DType::Int64)
    throw std::invalid_argument("GPT: ids must be Int64 [batch, T], got " +
                                std::string(dtype_name(ids.dtype())) + " " +
                                shape_to_string(ids.shape()));
  if (!cache.empty() && cache.size() != layers.size())
    throw std::invalid_argument("GPT: " + std::to_string(cache.size()) + " caches for " +
                                std::to_string(layers.size()) + " layers");
  const int64_t past = cache.empty() ? 0 : cache[0].length();
  const int64_t length = ids.size(1);
  if (past + length > config_.context)
    throw std::invalid_argument("GPT: positions " + std::to_string(past) + " .. " +
                                std::to_string(past + length - 1) + " pass the context of " +
                                std::to_string(config_.context));
  // x = E[ids] + P[positions], positions past .. past + T - 1
  const Tensor positions =
      Tensor::arange(static_cast<double>(past), static_cast<double>(past + length), 1,
                     DType::Int64);
  Variable x = (*dropout)((*token_embedding)(ids) + (*position_embedding)(positions));
  const Tensor mask = nn::causal_mask_after(past, length);
  for (size_t i = 0; i < layers.size(); ++i)
    x = layers[i]->forward(x, mask, cache.empty() ? nullptr : &cache[i], observer);
  return (*final_norm)(x);
}

Variable GPT::forward(const Tensor& ids, std::span<nn::KeyValueCache> cache,
                      nn::AttentionObserver* observer) {
  // logits = h Eᵀ: the output layer is the token embedding (weight tying)
  const Variable hidden = hidden_states(ids, cache, observer);
  if (head_bfloat16_) return Variable(matmul_bfloat16(hidden.value(), *head_bfloat16_));
  // One position of one sequence: E's panels, while E is the one they were made from (as a
  // Linear reads its own).
  if (head_packed_ && hidden.value().numel() == config_.d_model &&
      head_packed_from_.lock() == token_embedding->weight.value().storage())
    return Variable(matmul_packed_row(hidden.value(), *head_packed_));
  return matmul(hidden, token_embedding->weight, Trans::No, Trans::Yes);
}

void GPT::use_packed_weights() {
  if (head_bfloat16_)
    throw std::invalid_argument("use_packed_weights: " + type_name() +
                                ": the weights are kept as bfloat16");
  nn::use_packed_weights(*this);  // the float64 and CPU refusals: the first Linear's
  head_packed_ = std::make_shared<const PackedRows>(token_embedding->weight.value());
  head_packed_from_ = token_embedding->weight.value().storage();
}

void GPT::use_bfloat16_weights() {
  head_packed_ = nullptr;
  nn::use_bfloat16_weights(*this);
  head_bfloat16_ = std::make_shared<const BFloat16Matrix>(token_embedding->weight.value());
  token_embedding->weight.mutable_value() = head_bfloat16_->to_float32();  // the lookups' rows
}

Variable GPT::loss(const Tensor& ids, const Tensor& targets) {
  return nn::linear_cross_entropy(hidden_states(ids), token_embedding->weight, Variable(),
                                  targets);
}

std::vector<nn::KeyValueCache> GPT::make_cache(int64_t rows, int64_t positions,
                                               int64_t max_rows) const {
  std::vector<nn::KeyValueCache> cache;
  const int64_t head_dim = config_.d_model / config_.heads;
  for (size_t i = 0; i < layers.size(); ++i)
    cache.emplace_back(rows, std::max(rows, max_rows), config_.heads,
                       std::min(positions, config_.context), head_dim,
                       token_embedding->weight.dtype());
  return cache;
}

const ConfigFields<GPTConfig>& config_fields() {
  static const ConfigFields<GPTConfig> fields{
      .integers = {{"vocab", &GPTConfig::vocab, 1, std::numeric_limits<int64_t>::max()},
                   {"context", &GPTConfig::context, 1, 1 << 16},
                   {"d_model", &GPTConfig::d_model, 1, 1 << 16},
                   {"heads", &GPTConfig::heads, 1, 1 << 16},
                   {"layers", &GPTConfig::layers, 1, 1024}},
      .numbers = {{"dropout", &GPTConfig::dropout, 0.0, 0.99, false}},
      .booleans = {}};
  return fields;
}

nlohmann::json config_to_json(const GPTConfig& config) { return config_fields().to_json(config); }

GPTConfig config_from_json(const nlohmann::json& json, const std::string& where) {
  GPTConfig config;
  try {
    config = config_fields().from_json(json);
    if (config.d_model % config.heads != 0)
      throw std::invalid_argument("d_model " + std::to_string(config.d_model) +
                                  " is not a multiple of heads " + std::to_string(config.heads));
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(where + ": config.json: bad model config: " + error.what());
  }
  return config;
}

ExpectedTensors expected_tensors(const GPTConfig& c) {
  ExpectedTensors tensors = {{{"token_embedding.weight"}, {c.vocab, c.d_model}},
                             {{"position_embedding.weight"}, {c.context, c.d_model}}};
  for (int64_t i = 0; i < c.layers; ++i)
    add_transformer_layer(tensors, "layers." + std::to_string(i) + ".", c.d_model, 4 * c.d_model);
  add_layer_norm(tensors, "final_norm", c.d_model);
  return tensors;
}

}  // namespace atencion::examples::gpt

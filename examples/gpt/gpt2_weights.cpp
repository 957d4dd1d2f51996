// examples/gpt/gpt2_weights.cpp — see gpt2_weights.h. Lesson: docs/15-gpt.md#gpt-2s-own-weights
#include "gpt/gpt2_weights.h"

#include <filesystem>
#include <stdexcept>

#include "base/io/file_checks.h"
#include "base/io/json_fields.h"
#include "nlohmann/json.hpp"

namespace atencion::examples::gpt {
namespace {

// "h.0.ln_1.weight" whether the file says "h.0..." or "transformer.h.0..."
const Tensor* find_weight(const std::map<std::string, Tensor>& weights, const std::string& name) {
  for (const std::string& key : {name, "transformer." + name}) {
    const auto found = weights.find(key);
    if (found != weights.end()) return &found->second;
  }
  return nullptr;
}

}  // namespace

GPTConfig gpt2_config(const std::string& dir, const std::map<std::string, Tensor>& weights) {
  GPTConfig config;
  config.dropout = 0.1;  // GPT-2's resid_pdrop, embd_pdrop, attn_pdrop (inert in eval mode)
  const Tensor* wte = find_weight(weights, "wte.weight");
  const Tensor* wpe = find_weight(weights, "wpe.weight");
  const std::string file = (std::filesystem::path(dir) / "model.safetensors").string();
  if (wte == nullptr || wte->dim() != 2)
    throw std::runtime_error(file + ": tensor 'wte.weight': missing, or not [vocab, d_model]");
  if (wpe == nullptr || wpe->dim() != 2)
    throw std::runtime_error(file + ": tensor 'wpe.weight': missing, or not [positions, d_model]");
  config.vocab = wte->size(0);
  config.d_model = wte->size(1);
  config.context = wpe->size(0);
  config.layers = 0;
  while (find_weight(weights, "h." + std::to_string(config.layers) + ".ln_1.weight") != nullptr)
    ++config.layers;
  if (config.layers == 0) throw std::runtime_error(file + ": tensor 'h.0.ln_1.weight': missing");
  config.heads = config.d_model % 64 == 0 ? config.d_model / 64 : 1;
  const std::string config_path = (std::filesystem::path(dir) / "config.json").string();
  if (std::filesystem::exists(config_path)) {
    nlohmann::json json;
    try {
      json = nlohmann::json::parse(read_file(config_path));
      config.heads = integer_field(json, "n_head", 1, config.d_model);
    } catch (const std::exception& error) {
      throw std::runtime_error(config_path + ": " + error.what());
    }
    auto agrees = [&](const char* key, int64_t value) {
      if (json.contains(key) && json.at(key) != value)
        throw std::runtime_error(config_path + ": " + key + " is " + json.at(key).dump() +
                                 ", but the weights say " + std::to_string(value));
    };
    agrees("n_embd", config.d_model);
    agrees("n_layer", config.layers);
    agrees("n_positions", config.context);
    agrees("vocab_size", config.vocab);
  }
  if (config.d_model % config.heads != 0)
    throw std::runtime_error(config_path + ": n_head " + std::to_string(config.heads) +
                             " does not divide n_embd " + std::to_string(config.d_model));
  return config;
}

NamedTensors from_gpt2_layout(const GPTConfig& c, const std::map<std::string, Tensor>& weights,
                              const std::string& file, DType dtype) {
  const int64_t d = c.d_model;
  auto take = [&](const std::string& name, const Shape& shape) {
    const Tensor* found = find_weight(weights, name);
    if (found == nullptr)
      throw std::runtime_error(file + ": tensor '" + name + "': missing (expected shape " +
                               shape_to_string(shape) + ")");
    if (found->shape() != shape)
      throw std::runtime_error(file + ": tensor '" + name + "': expected shape " +
                               shape_to_string(shape) + ", found " +
                               shape_to_string(found->shape()));
    return found->to(dtype);
  };
  NamedTensors ours;
  auto put = [&](const std::string& name, const Tensor& tensor) {
    ours.emplace_back(name, tensor.contiguous());
  };
  put("token_embedding.weight", take("wte.weight", {c.vocab, d}));
  put("position_embedding.weight", take("wpe.weight", {c.context, d}));
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string hf = "h." + std::to_string(i) + ".";
    const std::string layer = "layers." + std::to_string(i) + ".";
    put(layer + "norm1.weight", take(hf + "ln_1.weight", {d}));
    put(layer + "norm1.bias", take(hf + "ln_1.bias", {d}));
    // c_attn: x W + b with W [d, 3d] = [W_Q | W_K | W_V]; Linear wants each block transposed
    const Tensor qkv_weight = take(hf + "attn.c_attn.weight", {d, 3 * d});
    const Tensor qkv_bias = take(hf + "attn.c_attn.bias", {3 * d});
    const char* projections[] = {"q_proj", "k_proj", "v_proj"};
    for (int64_t part = 0; part < 3; ++part) {
      const std::string name = layer + "self_attn." + projections[part];
      put(name + ".weight", qkv_weight.narrow(1, part * d, d).t());
      put(name + ".bias", qkv_bias.narrow(0, part * d, d));
    }
    put(layer + "self_attn.out_proj.weight", take(hf + "attn.c_proj.weight", {d, d}).t());
    put(layer + "self_attn.out_proj.bias", take(hf + "attn.c_proj.bias", {d}));
    put(layer + "norm2.weight", take(hf + "ln_2.weight", {d}));
    put(layer + "norm2.bias", take(hf + "ln_2.bias", {d}));
    put(layer + "feed_forward.linear1.weight", take(hf + "mlp.c_fc.weight", {d, 4 * d}).t());
    put(layer + "feed_forward.linear1.bias", take(hf + "mlp.c_fc.bias", {4 * d}));
    put(layer + "feed_forward.linear2.weight", take(hf + "mlp.c_proj.weight", {4 * d, d}).t());
    put(layer + "feed_forward.linear2.bias", take(hf + "mlp.c_proj.bias", {d}));
  }
  put("final_norm.weight", take("ln_f.weight", {d}));
  put("final_norm.bias", take("ln_f.bias", {d}));
  if (const auto lm_head = weights.find("lm_head.weight"); lm_head != weights.end())
    if (lm_head->second.shape() != Shape{c.vocab, d})
      throw std::runtime_error(file + ": tensor 'lm_head.weight': expected shape " +
                               shape_to_string({c.vocab, d}) + " (tied to wte), found " +
                               shape_to_string(lm_head->second.shape()));
  return ours;
}

std::shared_ptr<GPT> load_gpt2(const std::string& dir, DType dtype) {
  const std::string file = (std::filesystem::path(dir) / "model.safetensors").string();
  if (const std::string problem = not_a_regular_file(file); !problem.empty())
    throw std::runtime_error(file + " " + problem + " (--gpt2 wants a directory as published "
                             "for GPT-2: model.safetensors, config.json, vocab.json, merges.txt)");
  const std::map<std::string, Tensor> weights = load_safetensors(file);
  const GPTConfig config = gpt2_config(dir, weights);
  const NamedTensors ours = from_gpt2_layout(config, weights, file, dtype);
  // Built without an initialisation: every weight is replaced.
  Generator generator = Generator::skipping_tensor_draws();
  auto model = std::make_shared<GPT>(config, generator);
  model->to(dtype);
  model->load_state_dict(ours);
  model->eval();
  return model;
}

}  // namespace atencion::examples::gpt

// examples/gpt/gpt2_weights.cpp — see gpt2_weights.h. Lesson: docs/15-gpt.md#gpt-2s-own-weights
#include "gpt/gpt2_weights.h"

#include <filesystem>
#include <stdexcept>

#include "base/io/expected_tensors.h"
#include "base/io/file_checks.h"
#include "base/io/json_fields.h"
#include "base/io/model_directory.h"
#include "nlohmann/json.hpp"

namespace atencion::examples::gpt {
namespace {

constexpr const char* kPublished = "--gpt2 wants a directory as published for GPT-2: "
                                   "model.safetensors, config.json, vocab.json, merges.txt";

// "h.0.ln_1.weight" whether the file says "h.0..." or "transformer.h.0..."
std::vector<std::string> names_of(const std::string& name) {
  return {name, "transformer." + name};
}
const Tensor* find_weight(const std::map<std::string, Tensor>& weights, const std::string& name) {
  for (const std::string& key : names_of(name))
    if (const auto found = weights.find(key); found != weights.end()) return &found->second;
  return nullptr;
}

const SafetensorsEntry* find_entry(const SafetensorsHeader& header, const std::string& name) {
  for (const std::string& key : names_of(name))
    if (const auto found = header.find(key); found != header.end()) return &found->second;
  return nullptr;
}

// config.json's settings of what the model computes: GPT-2's own values, or a refusal naming
// the field (our GPT computes exactly GPT-2's block).
void check_computes_as_gpt2(const nlohmann::json& json, const GPTConfig& config) {
  auto refuse_unless = [&](const char* key, bool ours, const std::string& wanted) {
    if (json.contains(key) && !ours) refuse_field(key, json.at(key), wanted);
  };
  auto is = [&](const char* key, const nlohmann::json& value) {
    return !json.contains(key) || json.at(key) == value;
  };
  refuse_unless("activation_function",
                is("activation_function", "gelu_new") ||
                    is("activation_function", "gelu_pytorch_tanh"),  // the same function
                "\"gelu_new\" (GELU's tanh form, the one this GPT computes)");
  refuse_unless("layer_norm_epsilon",
                !json.contains("layer_norm_epsilon") ||
                    (json.at("layer_norm_epsilon").is_number() &&
                     json.at("layer_norm_epsilon").get<double>() == 1e-5),
                "1e-05 (the ε this GPT's LayerNorms use)");
  refuse_unless("scale_attn_weights", is("scale_attn_weights", true), "true (scores / √d_head)");
  refuse_unless("scale_attn_by_inverse_layer_idx", is("scale_attn_by_inverse_layer_idx", false),
                "false (no per-layer scaling)");
  refuse_unless("add_cross_attention", is("add_cross_attention", false), "false (decoder-only)");
  refuse_unless("n_inner", is("n_inner", nullptr) || is("n_inner", 4 * config.d_model),
                "null or " + std::to_string(4 * config.d_model) + " (4 × n_embd)");
}

}  // namespace

GPTConfig gpt2_config(const std::string& dir, const SafetensorsHeader& header) {
  GPTConfig config;
  config.dropout = 0.1;  // GPT-2's resid_pdrop, embd_pdrop, attn_pdrop (inert in eval mode)
  const SafetensorsEntry* wte = find_entry(header, "wte.weight");
  const SafetensorsEntry* wpe = find_entry(header, "wpe.weight");
  const std::string file = (std::filesystem::path(dir) / "model.safetensors").string();
  if (wte == nullptr || wte->shape.size() != 2)
    throw std::runtime_error(file + ": tensor 'wte.weight': missing, or not [vocab, d_model]");
  if (wpe == nullptr || wpe->shape.size() != 2)
    throw std::runtime_error(file + ": tensor 'wpe.weight': missing, or not [positions, d_model]");
  config.vocab = wte->shape[0];
  config.d_model = wte->shape[1];
  config.context = wpe->shape[0];
  config.layers = 0;
  while (find_entry(header, "h." + std::to_string(config.layers) + ".ln_1.weight") != nullptr)
    ++config.layers;
  if (config.layers == 0) throw std::runtime_error(file + ": tensor 'h.0.ln_1.weight': missing");
  config.heads = config.d_model % 64 == 0 ? config.d_model / 64 : 1;
  const std::string config_path = (std::filesystem::path(dir) / "config.json").string();
  if (model_file_present(dir, "config.json")) {  // optional; a FIFO is refused by name
    model_file(dir, "config.json", kPublished);
    try {
      const nlohmann::json json = nlohmann::json::parse(read_file(config_path));
      config.heads = integer_field(json, "n_head", 1, config.d_model);
      for (const auto& [key, value] : {std::pair{"n_embd", config.d_model},
                                       std::pair{"n_layer", config.layers},
                                       std::pair{"n_positions", config.context},
                                       std::pair{"vocab_size", config.vocab}})
        if (json.contains(key) && json.at(key) != value)
          refuse_field(key, json.at(key), std::to_string(value) + " as the weights have it");
      check_computes_as_gpt2(json, config);
    } catch (const std::exception& error) {
      throw std::runtime_error(config_path + ": " + error.what());
    }
  }
  if (config.d_model % config.heads != 0)
    throw std::runtime_error(config_path + ": n_head " + std::to_string(config.heads) +
                             " does not divide n_embd " + std::to_string(config.d_model));
  return config;
}

ExpectedTensors gpt2_expected_tensors(const GPTConfig& c) {
  const int64_t d = c.d_model;
  ExpectedTensors tensors = {{names_of("wte.weight"), {c.vocab, d}},
                             {names_of("wpe.weight"), {c.context, d}}};
  auto add = [&](const std::string& name, const Shape& shape) {
    tensors.push_back({names_of(name), shape});
  };
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string h = "h." + std::to_string(i) + ".";
    for (const char* norm : {"ln_1", "ln_2"}) {
      add(h + norm + ".weight", {d});
      add(h + norm + ".bias", {d});
    }
    add(h + "attn.c_attn.weight", {d, 3 * d});
    add(h + "attn.c_attn.bias", {3 * d});
    add(h + "attn.c_proj.weight", {d, d});
    add(h + "attn.c_proj.bias", {d});
    add(h + "mlp.c_fc.weight", {d, 4 * d});
    add(h + "mlp.c_fc.bias", {4 * d});
    add(h + "mlp.c_proj.weight", {4 * d, d});
    add(h + "mlp.c_proj.bias", {d});
  }
  add("ln_f.weight", {d});
  add("ln_f.bias", {d});
  return tensors;
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
  const std::string file = model_file(dir, "model.safetensors", kPublished);
  // Every tensor's name, dtype and shape from the header, before any data is read.
  const SafetensorsHeader header = load_safetensors_header(file);
  const GPTConfig config = gpt2_config(dir, header);
  check_expected_tensors(header, gpt2_expected_tensors(config), file, OtherTensors::Ignore,
                         "the model");
  const NamedTensors ours = from_gpt2_layout(config, load_safetensors(file), file, dtype);
  // Built without an initialisation: every weight is replaced.
  Generator generator = Generator::skipping_tensor_draws();
  auto model = std::make_shared<GPT>(config, generator);
  model->to(dtype);
  model->load_state_dict(ours);
  model->eval();
  return model;
}

}  // namespace atencion::examples::gpt

// Tests for nn/torch_state_dict.cpp: torch modules saved under torch's own names
// (tools/make_fixtures_torch.py) load into ours and give the same outputs and gradients in
// float64; the names and layouts go back to torch's; a name or shape that does not fit is a
// clear error.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "fixture.h"
#include "nn/masks.h"
#include "nn/multi_head_attention.h"
#include "nn/torch_state_dict.h"
#include "nn/transformer.h"

using namespace atencion;
using namespace atencion::nn;
using atencion::testing::Fixture;
using atencion::testing::matches;
using Catch::Matchers::Contains;

namespace {

// "to 1e-12": |ours − torch| <= 1e-12 + 1e-12·|torch| for every element.
constexpr double kTolerance = 1e-12;

// Our parameters' gradients, renamed and packed as torch's, match the fixture's grad.param.*.
void require_torch_grads_match(const Module& module, const Fixture& fixture) {
  NamedTensors grads;
  for (const auto& [name, parameter] : module.named_parameters())
    grads.emplace_back(name, parameter.grad());
  const NamedTensors torch_grads = to_torch_names(module, grads);
  REQUIRE(torch_grads.size() == fixture.parameter_grads().size());
  for (const auto& [key, grad] : torch_grads) {
    INFO("fixture " << fixture.name() << ": gradient of torch key '" << key << "'");
    REQUIRE(matches(grad, fixture.grad_param(key), kTolerance, kTolerance));
  }
}

// Key padding by lengths, as the fixtures' masks: [batch, 1, 1, keys], true = may attend.
Tensor key_padding(const Fixture& fixture, const std::string& lengths, int64_t keys) {
  return padding_mask(fixture.input(lengths).to_ids(), keys);
}

void check_mha(const std::string& name, MultiHeadAttentionOptions options) {
  Fixture fixture(name);
  Generator generator(1);
  MultiHeadAttention attention(8, 2, options, generator);
  attention.to(DType::Float64);
  load_torch_state_dict(attention, fixture.parameters());
  const bool packed = fixture.has("param.in_proj_weight");
  Variable query = fixture.input_variable("query");
  Variable key = fixture.input_variable(packed ? "memory" : "key");
  Variable value = packed ? key : fixture.input_variable("value");
  const Variable output = attention(query, key, value, key_padding(fixture, "key_lengths", 5));
  REQUIRE(matches(output.value(), fixture.output(), kTolerance, kTolerance));
  output.backward(fixture.grad_output());
  REQUIRE(matches(query.grad(), fixture.grad_input("query"), kTolerance, kTolerance));
  REQUIRE(matches(key.grad(), fixture.grad_input(packed ? "memory" : "key"), kTolerance,
                  kTolerance));
  if (!packed)
    REQUIRE(matches(value.grad(), fixture.grad_input("value"), kTolerance, kTolerance));
  require_torch_grads_match(attention, fixture);
}

TransformerConfig config_of(const Fixture& fixture) {
  TransformerConfig config;
  config.src_vocab = fixture.meta_int("src_vocab");
  config.tgt_vocab = fixture.meta_int("tgt_vocab");
  config.d_model = fixture.meta_int("d_model");
  config.heads = fixture.meta_int("heads");
  config.encoder_layers = fixture.meta_int("encoder_layers");
  config.decoder_layers = fixture.meta_int("decoder_layers");
  config.d_ff = fixture.meta_int("d_ff");
  config.dropout = 0.0;
  config.max_len = fixture.meta_int("max_len");
  config.norm_first = fixture.meta("norm_first") == "True";
  config.padding_idx = fixture.meta_int("padding_idx");
  config.final_norm = true;  // torch.nn.Transformer always has encoder.norm and decoder.norm
  return config;
}

void check_transformer(const std::string& name) {
  Fixture fixture(name);
  const TransformerConfig config = config_of(fixture);
  Generator generator(1);
  Transformer model(config, generator);
  model.to(DType::Float64);
  load_torch_state_dict(model, fixture.parameters());
  const Tensor& source = fixture.input("source");
  const Tensor& target = fixture.input("target");
  const int64_t steps = target.size(1);
  // torch: src_key_padding_mask = memory_key_padding_mask (source padding), tgt_mask causal,
  // tgt_key_padding_mask (target padding); ours: their logical_not, the decoder's two combined.
  const Tensor source_mask = key_padding(fixture, "source_lengths", source.size(1));
  const Tensor target_mask =
      combine_masks(causal_mask(steps), key_padding(fixture, "target_lengths", steps));
  const Variable logits = model.forward(source, target, source_mask, target_mask, source_mask);
  REQUIRE(matches(logits.value(), fixture.output(), kTolerance, kTolerance));
  logits.backward(fixture.grad_output());
  require_torch_grads_match(model, fixture);
}

}  // namespace

TEST_CASE("torch_state_dict: MultiheadAttention with packed in_proj matches torch", "[torch]") {
  check_mha("torch_mha_packed_f64", {});
}

TEST_CASE("torch_state_dict: MultiheadAttention with q_proj_weight, kdim 5, vdim 6 matches torch",
          "[torch]") {
  MultiHeadAttentionOptions options;
  options.kdim = 5;
  options.vdim = 6;
  check_mha("torch_mha_separate_f64", options);
}

TEST_CASE("torch_state_dict: a whole post-norm nn.Transformer with final norms matches torch",
          "[torch]") {
  check_transformer("torch_transformer_post_f64");
}

TEST_CASE("torch_state_dict: a whole pre-norm nn.Transformer (norm_first) matches torch",
          "[torch]") {
  check_transformer("torch_transformer_pre_f64");
}

TEST_CASE("torch_state_dict: torch's names and layouts, and back", "[torch]") {
  Generator generator(3);
  TransformerConfig config;
  config.src_vocab = 7;
  config.tgt_vocab = 9;
  config.d_model = 8;
  config.heads = 2;
  config.encoder_layers = 1;
  config.decoder_layers = 1;
  config.d_ff = 16;
  config.final_norm = true;
  Transformer model(config, generator);
  const NamedTensors torch_state = torch_state_dict(model);
  std::map<std::string, Tensor> by_key(torch_state.begin(), torch_state.end());
  for (const char* key :
       {"encoder.layers.0.self_attn.in_proj_weight", "encoder.layers.0.linear1.weight",
        "decoder.layers.0.multihead_attn.in_proj_bias", "decoder.layers.0.norm3.weight",
        "encoder.norm.weight", "decoder.norm.bias", "src_embedding.weight",
        "output_projection.bias"})
    CHECK(by_key.count(key) == 1);
  CHECK(by_key.count("decoder.layers.0.cross_attn.q_proj.weight") == 0);
  // in_proj_weight is Q, K, V stacked by rows.
  const Tensor packed = by_key.at("decoder.layers.0.multihead_attn.in_proj_weight");
  REQUIRE(packed.shape() == Shape{24, 8});
  const auto& cross = model.decoder->layers[0]->cross_attn;
  CHECK(packed.narrow(0, 8, 8).to_vector() == cross->k_proj->weight.value().to_vector());
  CHECK(packed.narrow(0, 16, 8).to_vector() == cross->v_proj->weight.value().to_vector());
  // Loading torch's state into a fresh model gives back every value.
  Generator other(4);
  Transformer copy(config, other);
  load_torch_state_dict(copy, torch_state);
  const auto original = model.state_dict();
  const auto loaded = copy.state_dict();
  REQUIRE(original.size() == loaded.size());
  for (std::size_t i = 0; i < original.size(); ++i) {
    INFO(original[i].first);
    CHECK(original[i].second.to_vector() == loaded[i].second.to_vector());
  }
  // A float32 state loads into a float64 module.
  copy.to(DType::Float64);
  load_torch_state_dict(copy, torch_state);
  CHECK(copy.src_embedding->weight.dtype() == DType::Float64);
}

TEST_CASE("torch_state_dict: load_torch_safetensors reads torch's names from a file", "[torch]") {
  Fixture fixture("torch_mha_packed_f64");
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("atencion-torch-mha-" + std::to_string(::getpid()) + ".safetensors"))
                               .string();
  save_safetensors(path, fixture.parameters(), {}, {.floats = StoredFloats::F16});
  Generator generator(1);
  MultiHeadAttention attention(8, 2, generator);  // float32: the F16 values widen exactly
  load_torch_safetensors(attention, path);
  const std::vector<double> packed = fixture.tensor("param.in_proj_weight").to_vector();
  const std::vector<double> key = attention.k_proj->weight.value().to_vector();
  REQUIRE(key.size() == 64);
  for (std::size_t i = 0; i < key.size(); ++i)  // K is rows [8, 16) of in_proj_weight
    CHECK(key[i] == Approx(packed[64 + i]).epsilon(1e-3));  // float16: 11 significant bits
  MultiHeadAttention wider(16, 2, generator);
  CHECK_THROWS_WITH(load_torch_safetensors(wider, path),
                    Contains(path + ": load_torch_state_dict: MultiHeadAttention"));
  std::filesystem::remove(path);
}

TEST_CASE("torch_state_dict: encoder and decoder layers have torch's layer keys", "[torch]") {
  // sorted(torch.nn.TransformerEncoderLayer(8, 2, 16).state_dict()) and the decoder's, torch 1.13
  const std::vector<std::string> encoder_keys = {
      "linear1.bias", "linear1.weight", "linear2.bias", "linear2.weight", "norm1.bias",
      "norm1.weight", "norm2.bias", "norm2.weight", "self_attn.in_proj_bias",
      "self_attn.in_proj_weight", "self_attn.out_proj.bias", "self_attn.out_proj.weight"};
  const std::vector<std::string> decoder_keys = {
      "linear1.bias", "linear1.weight", "linear2.bias", "linear2.weight",
      "multihead_attn.in_proj_bias", "multihead_attn.in_proj_weight",
      "multihead_attn.out_proj.bias", "multihead_attn.out_proj.weight", "norm1.bias",
      "norm1.weight", "norm2.bias", "norm2.weight", "norm3.bias", "norm3.weight",
      "self_attn.in_proj_bias", "self_attn.in_proj_weight", "self_attn.out_proj.bias",
      "self_attn.out_proj.weight"};
  Generator generator(5);
  const TransformerLayerConfig config{8, 2, 16, 0.0, false, false};
  EncoderLayer encoder_layer(config, generator);
  DecoderLayer decoder_layer(config, generator);
  const auto keys = [](const Module& module) {
    std::vector<std::string> names;
    for (const auto& [key, tensor] : torch_state_dict(module)) names.push_back(key);
    std::sort(names.begin(), names.end());
    return names;
  };
  CHECK(keys(encoder_layer) == encoder_keys);
  CHECK(keys(decoder_layer) == decoder_keys);
  // And they load back: a layer's torch state into another layer.
  EncoderLayer other(config, generator);
  load_torch_state_dict(other, torch_state_dict(encoder_layer));
  CHECK(other.feed_forward->linear1->weight.value().to_vector() ==
        encoder_layer.feed_forward->linear1->weight.value().to_vector());
}

TEST_CASE("torch_state_dict: a name or shape that does not fit names the key and both shapes",
          "[torch]") {
  Fixture fixture("torch_mha_packed_f64");
  Generator generator(1);
  MultiHeadAttention attention(8, 2, generator);
  attention.to(DType::Float64);
  const Tensor before = attention.q_proj->weight.value().clone();

  NamedTensors wrong_shape = fixture.parameters();
  for (auto& [key, tensor] : wrong_shape)
    if (key == "in_proj_weight") tensor = tensor.narrow(1, 0, 6).contiguous();
  CHECK_THROWS_WITH(load_torch_state_dict(attention, wrong_shape),
                    Contains("torch key 'in_proj_weight' has shape [24, 6] but the module needs "
                             "[24, 8] (q_proj.weight, k_proj.weight, v_proj.weight)"));

  NamedTensors missing = fixture.parameters();
  std::erase_if(missing, [](const auto& entry) { return entry.first == "out_proj.bias"; });
  CHECK_THROWS_WITH(load_torch_state_dict(attention, missing),
                    Contains("missing torch key 'out_proj.bias' of shape [8] (out_proj.bias)"));

  NamedTensors extra = fixture.parameters();
  extra.emplace_back("bias_k", Tensor::empty({1, 1, 8}, DType::Float64));
  CHECK_THROWS_WITH(load_torch_state_dict(attention, extra),
                    Contains("unexpected torch key 'bias_k' of shape [1, 1, 8]"));

  // kdim/vdim differ: torch keeps q_proj_weight ..., which a packed module does not take.
  Fixture separate("torch_mha_separate_f64");
  CHECK_THROWS_WITH(load_torch_state_dict(attention, separate.parameters()),
                    Contains("unexpected torch key 'k_proj_weight' of shape [8, 5]"));
  // Nothing was changed by the failed loads.
  CHECK(attention.q_proj->weight.value().to_vector() == before.to_vector());
}

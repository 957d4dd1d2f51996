// tests/examples/gpt/test_gpt2_weights.cpp — examples/gpt/gpt2_weights.cpp: a tiny random GPT-2 in
// Hugging Face's layout (tests/fixtures/gpt2_tiny/model.safetensors) gives the logits of a
// PyTorch forward written from the published layout (reference.safetensors;
// tools/make_gpt2_fixture.py made both, and tests/examples/gpt2_reference.sh re-runs it).
#include <catch2/catch.hpp>

#include <filesystem>

#include "gpt/gpt2_weights.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::gpt;

namespace {
const std::string kFixture = std::string(ATENCION_FIXTURES_DIR) + "/gpt2_tiny";
}

TEST_CASE("GPT-2 weights: the logits of torch's forward, 1e-12 in float64, 1e-4 in float32",
          "[gpt2_weights]") {
  const auto reference = load_safetensors(kFixture + "/reference.safetensors");
  const Tensor ids = reference.at("ids"), expected = reference.at("logits");
  auto model = load_gpt2(kFixture, DType::Float64);
  CHECK(model->config().layers == 2);
  CHECK(model->config().heads == 2);
  const Tensor logits64 = model->forward(ids).value();
  CHECK(allclose(logits64, expected, 0, 1e-12));
  const Tensor logits32 = load_gpt2(kFixture, DType::Float32)->forward(ids).value();
  CHECK(allclose(logits32.to(DType::Float64), expected, 0, 1e-4));
}

TEST_CASE("GPT-2 weights: a missing or wrong-shaped tensor is named with both shapes",
          "[gpt2_weights]") {
  auto weights = load_safetensors(kFixture + "/model.safetensors");
  const SafetensorsHeader header = load_safetensors_header(kFixture + "/model.safetensors");
  const GPTConfig config = gpt2_config(kFixture, header);
  CHECK_NOTHROW(check_expected_tensors(header, gpt2_expected_tensors(config), "model.safetensors",
                                       OtherTensors::Ignore));
  weights["transformer.h.1.attn.c_attn.weight"] = Tensor::zeros({8, 16});
  CHECK_THROWS_WITH(from_gpt2_layout(config, weights, "model.safetensors", DType::Float32),
                    Catch::Equals("model.safetensors: tensor 'h.1.attn.c_attn.weight': expected "
                                  "shape [8, 24], found [8, 16]"));
  weights.erase("transformer.h.0.mlp.c_proj.bias");
  CHECK_THROWS_WITH(from_gpt2_layout(config, weights, "model.safetensors", DType::Float32),
                    Catch::Contains("tensor 'h.0.mlp.c_proj.bias': missing (expected shape [8])"));
  CHECK_THROWS_WITH(load_gpt2("/nonexistent-dir"),
                    Catch::Contains("model.safetensors does not exist"));
}

// Tests for examples/bert/masked_lm.cpp: a checkpoint whose config.json asks for other sizes
// than its weights is refused on the weights' names and shapes, before the model is built.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "bert/masked_lm.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::bert;
using Catch::Matchers::Contains;

namespace {

CheckpointData tiny_checkpoint() {
  std::vector<std::string> lines;
  for (const char* animal : {"gato", "perro", "niño", "pájaro"})
    for (const char* verb : {"come", "ve", "quiere"})
      for (const char* thing : {"pan", "agua", "fruta"})
        lines.push_back(std::string("El ") + animal + " " + verb + " " + thing + ".");
  TokenizerOptions options;
  options.vocab_size = 40;
  auto pieces = std::make_shared<SentencePieces>(Tokenizer::train(lines, options));
  BertConfig config;
  config.hidden = 8;
  config.heads = 2;
  config.layers = 2;
  config.intermediate = 16;
  config.max_positions = 16;
  return MaskedLanguageModel::create(config, pieces, 1).to_checkpoint();
}

}  // namespace

TEST_CASE("masked LM: a config.json that does not fit the weights is refused before building",
          "[bert][expected_tensors]") {
  const CheckpointData saved = tiny_checkpoint();
  CHECK_NOTHROW(MaskedLanguageModel::from_checkpoint(saved));
  auto edited = [&](const char* key, const nlohmann::json& value) {
    CheckpointData data = saved;
    data.config["model"][key] = value;
    return MaskedLanguageModel::from_checkpoint(data);
  };
  // 1000 layers or a feed-forward 2^18 wide would be allocated if the model were built first.
  CHECK_THROWS_WITH(edited("layers", 1000),
                    Contains("checkpoint/model.safetensors: no tensor "
                             "'encoder.layers.2.self_attn.q_proj.weight' (config.json asks for "
                             "one of shape [8, 8])"));
  CHECK_THROWS_WITH(edited("intermediate", 1 << 18),
                    Contains("checkpoint/model.safetensors: tensor "
                             "'encoder.layers.0.feed_forward.linear1.weight' has shape [16, 8], "
                             "config.json asks for [262144, 8]"));
  CHECK_THROWS_WITH(edited("layers", 1),
                    Contains("tensor 'encoder.layers.1.") && Contains("is not one config.json asks for"));
  CHECK_THROWS_WITH(edited("max_positions", 8),
                    Contains("'embeddings.position_embeddings.weight' has shape [16, 8], "
                             "config.json asks for [8, 8]"));
}

// examples/bert/bert_directory.cpp — see bert_directory.h.
#include "bert/bert_directory.h"

#include <stdexcept>

#include "base/io/expected_tensors.h"
#include "base/io/file_checks.h"
#include "base/io/json_fields.h"
#include "base/io/model_directory.h"
#include "nlohmann/json.hpp"

namespace atencion::examples::bert {
namespace {

constexpr const char* kHolds =
    "a BERT directory holds model.safetensors, vocab.txt and config.json";

// What config.json says that the weights' shapes do not: the heads and ε; that the model is the
// one we compute (GELU, absolute positions); and, where it gives them, sizes that must agree
// with the shapes. Throws std::invalid_argument naming the field.
void apply_config(const nlohmann::json& json, BertConfig& c) {
  if (json.contains("num_attention_heads"))
    c.heads = integer_field(json, "num_attention_heads", 1, 1 << 16);
  if (json.contains("layer_norm_eps"))
    c.layer_norm_eps = number_field(json, "layer_norm_eps", 0.0, 1.0);
  // What the model computes as written, or a refusal naming the field.
  for (const auto& [key, ours] : {std::pair{"hidden_act", "gelu"},
                                  std::pair{"position_embedding_type", "absolute"}})
    if (json.contains(key) && json.at(key) != ours)
      refuse_field(key, json.at(key),
                   std::string("\"") + ours + "\" (the one this BERT computes)");
  for (const auto& [key, size] : {std::pair{"vocab_size", c.vocab},
                                  std::pair{"hidden_size", c.hidden},
                                  std::pair{"num_hidden_layers", c.layers},
                                  std::pair{"intermediate_size", c.intermediate},
                                  std::pair{"max_position_embeddings", c.max_positions},
                                  std::pair{"type_vocab_size", c.type_vocab}})
    if (json.contains(key) && json.at(key) != size)
      refuse_field(key, json.at(key), std::to_string(size) + " as the weights have it");
}

}  // namespace

BertDirectory read_bert_directory(const std::string& directory, DType dtype) {
  const std::string weights_file = model_file(directory, "model.safetensors", kHolds);
  const std::string vocab_file = model_file(directory, "vocab.txt", kHolds);
  // Every tensor's name, dtype and shape from the header, before any data is read.
  const SafetensorsHeader header = load_safetensors_header(weights_file);
  HuggingFaceBertLayout layout = hugging_face_bert_layout(header, weights_file);
  if (model_file_present(directory, "config.json")) {  // optional; a FIFO is refused
    const std::string config_file = model_file(directory, "config.json", kHolds);
    try {
      apply_config(nlohmann::json::parse(read_file(config_file)), layout.config);
    } catch (const std::exception& error) {
      throw std::invalid_argument(config_file + ": " + error.what());
    }
  }
  if (layout.config.hidden % layout.config.heads != 0)
    throw std::invalid_argument(weights_file + ": hidden size " +
                                std::to_string(layout.config.hidden) + " is not a multiple of " +
                                std::to_string(layout.config.heads) + " heads");
  check_expected_tensors(header, hugging_face_bert_tensors(layout), weights_file,
                         OtherTensors::Ignore, "the model");
  WordPiece wordpiece = WordPiece::load(vocab_file);
  if (wordpiece.vocab_size() != layout.config.vocab)
    throw std::invalid_argument(vocab_file + ": " + std::to_string(wordpiece.vocab_size()) +
                                " pieces, but the word embeddings have " +
                                std::to_string(layout.config.vocab) + " rows");
  HuggingFaceBert weights{layout.config,
                          read_hugging_face_bert(load_safetensors(weights_file), layout, dtype),
                          layout.has_head};
  return {std::move(weights), std::move(wordpiece)};
}

}  // namespace atencion::examples::bert

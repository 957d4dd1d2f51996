// examples/bert/bert_directory.cpp — see bert_directory.h.
#include "bert/bert_directory.h"

#include <filesystem>
#include <stdexcept>

#include "base/io/file_checks.h"
#include "base/io/json_fields.h"
#include "nlohmann/json.hpp"

namespace atencion::examples::bert {

BertDirectory read_bert_directory(const std::string& directory, DType dtype) {
  namespace fs = std::filesystem;
  const std::string weights_file = (fs::path(directory) / "model.safetensors").string();
  const std::string vocab_file = (fs::path(directory) / "vocab.txt").string();
  const std::string config_file = (fs::path(directory) / "config.json").string();
  for (const std::string& file : {weights_file, vocab_file})
    if (!fs::exists(file))
      throw std::invalid_argument(file + ": missing (a BERT directory holds model.safetensors, "
                                  "vocab.txt and config.json)");
  int64_t heads = 0;
  double eps = 1e-12;
  if (fs::exists(config_file)) {
    try {
      const nlohmann::json config = nlohmann::json::parse(read_file(config_file));
      if (config.contains("num_attention_heads"))
        heads = integer_field(config, "num_attention_heads", 1, 1 << 16);
      if (config.contains("layer_norm_eps"))
        eps = number_field(config, "layer_norm_eps", 0.0, 1.0);
      if (config.value("hidden_act", std::string("gelu")) != "gelu")
        throw std::invalid_argument("hidden_act is not \"gelu\"");
    } catch (const std::exception& error) {
      throw std::invalid_argument(config_file + ": " + error.what());
    }
  }
  BertDirectory out{read_hugging_face_bert(load_safetensors(weights_file), heads, eps, dtype,
                                               weights_file),
                    WordPiece::load(vocab_file)};
  if (out.wordpiece.vocab_size() != out.weights.config.vocab)
    throw std::invalid_argument(vocab_file + ": " + std::to_string(out.wordpiece.vocab_size()) +
                                " pieces, but the word embeddings have " +
                                std::to_string(out.weights.config.vocab) + " rows");
  return out;
}

}  // namespace atencion::examples::bert

// examples/bert/bert_weights.cpp — see bert_weights.h. Lesson: docs/16-bert.md#berts-own-weights
#include "bert/bert_weights.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace atencion::examples::bert {
namespace {

// The parts of our names that Hugging Face spells otherwise (the table of bert_weights.h).
constexpr std::pair<const char*, const char*> kRenamed[] = {
    {"encoder.layers.", "encoder.layer."},
    {"self_attn.q_proj.", "attention.self.query."},
    {"self_attn.k_proj.", "attention.self.key."},
    {"self_attn.v_proj.", "attention.self.value."},
    {"self_attn.out_proj.", "attention.output.dense."},
    {"norm1.", "attention.output.LayerNorm."},
    {"feed_forward.linear1.", "intermediate.dense."},
    {"feed_forward.linear2.", "output.dense."},
    {"norm2.", "output.LayerNorm."},
    {"embeddings.norm.", "embeddings.LayerNorm."},
    {"transform_dense.", "cls.predictions.transform.dense."},
    {"transform_norm.", "cls.predictions.transform.LayerNorm."},
};

// Hugging Face's names for our tensor `ours`: the name, then the older spellings a file may
// use instead. The encoder's tensors take `prefix` ("bert." in BertForMaskedLM), the head's
// (cls.) never.
std::vector<std::string> hugging_face_names(const std::string& ours, const std::string& prefix) {
  if (ours == "output_bias") return {"cls.predictions.bias", "cls.predictions.decoder.bias"};
  std::string theirs = ours;
  for (const auto& [part, their_part] : kRenamed)
    if (const size_t at = theirs.find(part); at != std::string::npos)
      theirs.replace(at, std::string(part).size(), their_part);
  if (theirs.rfind("cls.", 0) != 0) theirs = prefix + theirs;
  std::vector<std::string> names{theirs};
  if (theirs.ends_with("LayerNorm.weight"))  // TensorFlow-era files: gamma and beta
    names.push_back(theirs.substr(0, theirs.size() - 6) + "gamma");
  if (theirs.ends_with("LayerNorm.bias"))
    names.push_back(theirs.substr(0, theirs.size() - 4) + "beta");
  return names;
}

// [rows, columns] of the 2-D tensor `name`, refused in one line when absent or not 2-D.
Shape matrix_shape(const SafetensorsHeader& header, const std::string& name,
                   const std::string& where) {
  const auto found = header.find(name);
  if (found == header.end()) throw std::invalid_argument(where + ": no tensor '" + name + "'");
  if (found->second.shape.size() != 2)
    throw std::invalid_argument(where + ": tensor '" + name + "' has shape " +
                                shape_to_string(found->second.shape) + ", not 2-D");
  return found->second.shape;
}

}  // namespace

HuggingFaceBertLayout hugging_face_bert_layout(const SafetensorsHeader& header,
                                               const std::string& where) {
  HuggingFaceBertLayout layout;
  // BertForMaskedLM (and BertForPreTraining) put the encoder under "bert."; BertModel does not.
  layout.prefix = header.count("bert.embeddings.word_embeddings.weight") ? "bert." : "";
  layout.has_head = header.count("cls.predictions.transform.dense.weight") > 0;
  BertConfig& c = layout.config;
  const std::string& p = layout.prefix;
  const Shape words = matrix_shape(header, p + "embeddings.word_embeddings.weight", where);
  c.vocab = words[0];
  c.hidden = words[1];
  c.max_positions = matrix_shape(header, p + "embeddings.position_embeddings.weight", where)[0];
  c.type_vocab = matrix_shape(header, p + "embeddings.token_type_embeddings.weight", where)[0];
  c.intermediate = matrix_shape(header, p + "encoder.layer.0.intermediate.dense.weight", where)[0];
  c.layers = 0;
  while (header.count(p + "encoder.layer." + std::to_string(c.layers) +
                      ".attention.self.query.weight"))
    ++c.layers;
  c.heads = std::max<int64_t>(1, c.hidden / 64);  // every published BERT; config.json may say
  c.dropout = 0;
  return layout;
}

ExpectedTensors hugging_face_bert_tensors(const HuggingFaceBertLayout& layout) {
  ExpectedTensors theirs;
  for (const ExpectedTensor& ours : expected_tensors(layout.config, layout.has_head))
    theirs.push_back({hugging_face_names(ours.names.front(), layout.prefix), ours.shape});
  return theirs;
}

NamedTensors read_hugging_face_bert(const std::map<std::string, Tensor>& tensors,
                                    const HuggingFaceBertLayout& layout, DType dtype) {
  NamedTensors ours;
  for (const ExpectedTensor& expected : expected_tensors(layout.config, layout.has_head))
    for (const std::string& name : hugging_face_names(expected.names.front(), layout.prefix))
      if (const auto found = tensors.find(name); found != tensors.end()) {
        ours.emplace_back(expected.names.front(), found->second.to(dtype));
        break;
      }
  return ours;
}

void load_hugging_face_bert(Bert& model, const HuggingFaceBert& hf) {
  NamedTensors state = hf.weights;
  if (!hf.has_head)  // the head is not in the file: it keeps its values
    for (const auto& [name, parameter] : model.named_parameters())
      if (name.rfind("transform_", 0) == 0 || name == "output_bias")
        state.emplace_back(name, parameter.value());
  model.load_state_dict(state);
}

}  // namespace atencion::examples::bert

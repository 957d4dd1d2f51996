// examples/bert/bert_weights.cpp — see bert_weights.h. Lesson: docs/16-bert.md#berts-own-weights
#include "bert/bert_weights.h"

#include <stdexcept>
#include <vector>

namespace atencion::examples::bert {
namespace {

class Reader {
 public:
  Reader(const std::map<std::string, Tensor>& tensors, std::string where, DType dtype)
      : tensors_(tensors), where_(std::move(where)), dtype_(dtype) {}

  bool has(const std::string& name) const { return tensors_.count(name) > 0; }

  // The tensor `name` (or, when absent, `old_name`), which must have `shape`.
  const Tensor& get(const std::string& name, const Shape& shape, const std::string& fixed_by,
                    const std::string& old_name = "") const {
    auto found = tensors_.find(name);
    if (found == tensors_.end() && !old_name.empty()) found = tensors_.find(old_name);
    if (found == tensors_.end()) throw std::invalid_argument(where_ + ": no tensor '" + name + "'");
    if (found->second.shape() != shape)
      throw std::invalid_argument(where_ + ": '" + found->first + "' has shape " +
                                  shape_to_string(found->second.shape()) + ", not " +
                                  shape_to_string(shape) + " (" + fixed_by + ")");
    return found->second;
  }
  // The first dimensions of `name` (any rank), to read a size from.
  const Shape& shape_of(const std::string& name) const {
    const auto found = tensors_.find(name);
    if (found == tensors_.end()) throw std::invalid_argument(where_ + ": no tensor '" + name + "'");
    if (found->second.dim() != 2)
      throw std::invalid_argument(where_ + ": '" + name + "' has shape " +
                                  shape_to_string(found->second.shape()) + ", not 2-D");
    return found->second.shape();
  }
  void take(NamedTensors& out, const std::string& ours, const Tensor& tensor) const {
    out.emplace_back(ours, tensor.to(dtype_));
  }

 private:
  const std::map<std::string, Tensor>& tensors_;
  std::string where_;
  DType dtype_;
};

// A LayerNorm's two tensors, under either generation of names.
void take_norm(const Reader& in, NamedTensors& out, const std::string& theirs,
               const std::string& ours, int64_t hidden) {
  in.take(out, ours + ".weight",
          in.get(theirs + ".weight", {hidden}, "hidden size", theirs + ".gamma"));
  in.take(out, ours + ".bias", in.get(theirs + ".bias", {hidden}, "hidden size", theirs + ".beta"));
}

void take_linear(const Reader& in, NamedTensors& out, const std::string& theirs,
                 const std::string& ours, int64_t rows, int64_t columns, const std::string& why) {
  in.take(out, ours + ".weight", in.get(theirs + ".weight", {rows, columns}, why));
  in.take(out, ours + ".bias", in.get(theirs + ".bias", {rows}, why));
}

void take_layer(const Reader& in, NamedTensors& out, const std::string& theirs,
                const std::string& ours, const BertConfig& c) {
  const std::string attention = theirs + "attention.", mine = ours + "self_attn.";
  const char* square = "hidden size";
  take_linear(in, out, attention + "self.query", mine + "q_proj", c.hidden, c.hidden, square);
  take_linear(in, out, attention + "self.key", mine + "k_proj", c.hidden, c.hidden, square);
  take_linear(in, out, attention + "self.value", mine + "v_proj", c.hidden, c.hidden, square);
  take_linear(in, out, attention + "output.dense", mine + "out_proj", c.hidden, c.hidden, square);
  take_norm(in, out, attention + "output.LayerNorm", ours + "norm1", c.hidden);
  const char* wide = "hidden and intermediate sizes";
  take_linear(in, out, theirs + "intermediate.dense", ours + "feed_forward.linear1",
              c.intermediate, c.hidden, wide);
  in.take(out, ours + "feed_forward.linear2.weight",
          in.get(theirs + "output.dense.weight", {c.hidden, c.intermediate}, wide));
  in.take(out, ours + "feed_forward.linear2.bias",
          in.get(theirs + "output.dense.bias", {c.hidden}, wide));
  take_norm(in, out, theirs + "output.LayerNorm", ours + "norm2", c.hidden);
}

}  // namespace

HuggingFaceBert read_hugging_face_bert(const std::map<std::string, Tensor>& tensors,
                                       int64_t heads, double layer_norm_eps, DType dtype,
                                       const std::string& where) {
  const Reader in(tensors, where, dtype);
  // BertForMaskedLM (and BertForPreTraining) put the encoder under "bert."; BertModel does not.
  const std::string prefix = in.has("bert.embeddings.word_embeddings.weight") ? "bert." : "";
  HuggingFaceBert hf;
  BertConfig& c = hf.config;
  const Shape& words = in.shape_of(prefix + "embeddings.word_embeddings.weight");
  c.vocab = words[0];
  c.hidden = words[1];
  c.max_positions = in.shape_of(prefix + "embeddings.position_embeddings.weight")[0];
  c.type_vocab = in.shape_of(prefix + "embeddings.token_type_embeddings.weight")[0];
  c.intermediate = in.shape_of(prefix + "encoder.layer.0.intermediate.dense.weight")[0];
  c.layers = 0;
  while (in.has(prefix + "encoder.layer." + std::to_string(c.layers) + ".attention.self.query.weight"))
    ++c.layers;
  c.heads = heads > 0 ? heads : std::max<int64_t>(1, c.hidden / 64);
  if (c.hidden % c.heads != 0)
    throw std::invalid_argument(where + ": hidden size " + std::to_string(c.hidden) +
                                " is not a multiple of " + std::to_string(c.heads) + " heads");
  c.layer_norm_eps = layer_norm_eps;
  c.dropout = 0;

  NamedTensors& out = hf.weights;
  const std::string embeddings = prefix + "embeddings.";
  in.take(out, "embeddings.word_embeddings.weight",
          in.get(embeddings + "word_embeddings.weight", {c.vocab, c.hidden}, "vocabulary"));
  in.take(out, "embeddings.position_embeddings.weight",
          in.get(embeddings + "position_embeddings.weight", {c.max_positions, c.hidden},
                 "hidden size"));
  in.take(out, "embeddings.token_type_embeddings.weight",
          in.get(embeddings + "token_type_embeddings.weight", {c.type_vocab, c.hidden},
                 "hidden size"));
  take_norm(in, out, embeddings + "LayerNorm", "embeddings.norm", c.hidden);
  for (int64_t i = 0; i < c.layers; ++i)
    take_layer(in, out, prefix + "encoder.layer." + std::to_string(i) + ".",
               "encoder.layers." + std::to_string(i) + ".", c);

  hf.has_head = in.has("cls.predictions.transform.dense.weight");
  if (hf.has_head) {
    take_linear(in, out, "cls.predictions.transform.dense", "transform_dense", c.hidden, c.hidden,
                "hidden size");
    take_norm(in, out, "cls.predictions.transform.LayerNorm", "transform_norm", c.hidden);
    in.take(out, "output_bias",
            in.has("cls.predictions.bias")
                ? in.get("cls.predictions.bias", {c.vocab}, "vocabulary")
                : in.get("cls.predictions.decoder.bias", {c.vocab}, "vocabulary"));
  }
  return hf;
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

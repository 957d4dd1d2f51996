// examples/bert/bert.cpp — Lesson: docs/16-bert.md
#include "bert/bert.h"

#include <stdexcept>
#include <vector>

#include "autograd/ops.h"
#include "nn/loss.h"
#include "tensor/ops.h"

namespace atencion::examples::bert {

using nn::Dropout;
using nn::Embedding;
using nn::Encoder;
using nn::LayerNorm;
using nn::Linear;

BertEmbeddings::BertEmbeddings(const BertConfig& c, Generator& generator) {
  word_embeddings =
      register_module("word_embeddings", std::make_shared<Embedding>(c.vocab, c.hidden, generator));
  position_embeddings = register_module(
      "position_embeddings", std::make_shared<Embedding>(c.max_positions, c.hidden, generator));
  token_type_embeddings = register_module(
      "token_type_embeddings", std::make_shared<Embedding>(c.type_vocab, c.hidden, generator));
  norm = register_module("norm", std::make_shared<LayerNorm>(c.hidden, c.layer_norm_eps));
  dropout = register_module("dropout", std::make_shared<Dropout>(c.dropout, generator));
}

std::string BertEmbeddings::type_name() const {
  return "BertEmbeddings(vocab=" + std::to_string(word_embeddings->vocab()) +
         ", positions=" + std::to_string(position_embeddings->vocab()) +
         ", hidden=" + std::to_string(word_embeddings->d_model()) + ")";
}

Variable BertEmbeddings::forward(const Tensor& ids, const Tensor& token_types) const {
  if (ids.dim() != 2)
    throw std::invalid_argument("BertEmbeddings: ids must be [batch, S], not " +
                                shape_to_string(ids.shape()));
  const int64_t length = ids.size(1);
  if (length > position_embeddings->vocab())
    throw std::invalid_argument("BertEmbeddings: " + std::to_string(length) +
                                " tokens, but the model has only " +
                                std::to_string(position_embeddings->vocab()) + " positions");
  const Tensor positions = Tensor::arange(0, static_cast<double>(length), 1, DType::Int64);
  const Tensor types = token_types.defined() ? token_types : Tensor::zeros(ids.shape(), DType::Int64);
  // x_i = E_word[id_i] + E_position[i] + E_type[type_i]   (the position row broadcasts over batch)
  const Variable summed = (*word_embeddings)(ids) + (*position_embeddings)(positions) +
                          (*token_type_embeddings)(types);
  return (*dropout)((*norm)(summed));
}

Bert::Bert(const BertConfig& c, Generator& generator) : config_(c) {
  if (c.vocab < 1 || c.hidden < 1 || c.heads < 1 || c.hidden % c.heads != 0 || c.layers < 1 ||
      c.intermediate < 1 || c.max_positions < 1 || c.type_vocab < 1)
    throw std::invalid_argument(
        "Bert(vocab=" + std::to_string(c.vocab) + ", hidden=" + std::to_string(c.hidden) +
        ", heads=" + std::to_string(c.heads) + ", layers=" + std::to_string(c.layers) +
        "): sizes must be >= 1 and hidden a multiple of heads");
  embeddings = register_module("embeddings", std::make_shared<BertEmbeddings>(c, generator));
  encoder = register_module("encoder", std::make_shared<Encoder>(c.layer(), c.layers, generator));
  transform_dense =
      register_module("transform_dense", std::make_shared<Linear>(c.hidden, c.hidden, generator));
  transform_norm =
      register_module("transform_norm", std::make_shared<LayerNorm>(c.hidden, c.layer_norm_eps));
  output_bias = register_parameter("output_bias", Tensor::zeros({c.vocab}));
  if (generator.skips_tensor_draws()) return;  // loaded next: the zeros stay until then
  // BERT's initialisation (its initializer_range 0.02) over the library's defaults.
  NoGradGuard no_grad;
  for (auto& [name, parameter] : named_parameters()) {
    Tensor& value = parameter.mutable_value();
    const bool is_norm = name.find("norm") != std::string::npos;
    if (value.dim() == 2) value.copy_(mul(randn(value.shape(), generator), 0.02));
    else if (!is_norm) value.fill_(0.0);  // biases; LayerNorms keep their 1 and 0
  }
}

ExpectedTensors expected_tensors(const BertConfig& c, bool with_head) {
  ExpectedTensors tensors = {
      {{"embeddings.word_embeddings.weight"}, {c.vocab, c.hidden}},
      {{"embeddings.position_embeddings.weight"}, {c.max_positions, c.hidden}},
      {{"embeddings.token_type_embeddings.weight"}, {c.type_vocab, c.hidden}}};
  add_layer_norm(tensors, "embeddings.norm", c.hidden);
  for (int64_t i = 0; i < c.layers; ++i)
    add_transformer_layer(tensors, "encoder.layers." + std::to_string(i) + ".", c.hidden,
                          c.intermediate);
  if (!with_head) return tensors;
  add_linear(tensors, "transform_dense", c.hidden, c.hidden);
  add_layer_norm(tensors, "transform_norm", c.hidden);
  tensors.push_back({{"output_bias"}, {c.vocab}});
  return tensors;
}

std::string Bert::type_name() const {
  return "Bert(vocab=" + std::to_string(config_.vocab) + ", hidden=" +
         std::to_string(config_.hidden) + ", heads=" + std::to_string(config_.heads) +
         ", layers=" + std::to_string(config_.layers) + ")";
}

Variable Bert::encode(const Tensor& ids, const Tensor& mask, const Tensor& token_types,
                      nn::AttentionObserver* observer) {
  return encoder->forward(embeddings->forward(ids, token_types), mask, observer);
}

Variable Bert::transform(const Variable& hidden) const {
  return (*transform_norm)(gelu((*transform_dense)(hidden)));  // LayerNorm(gelu(h W_tᵀ + b_t))
}

Variable Bert::mlm_logits(const Variable& hidden) const {
  // h' Eᵀ + b: the word embeddings read backwards, one score per piece.
  return matmul(transform(hidden), embeddings->word_embeddings->weight, Trans::No, Trans::Yes) +
         output_bias;
}

Variable Bert::masked_lm_loss(const Variable& hidden, const Tensor& labels) const {
  if (labels.shape() != Shape{hidden.shape()[0], hidden.shape()[1]})
    throw std::invalid_argument("Bert::masked_lm_loss: labels " + shape_to_string(labels.shape()) +
                                " do not match hidden states " + shape_to_string(hidden.shape()));
  // Only the masked rows go through the head: 15% of the positions, not all of them.
  const nn::CountedRows masked_rows = nn::counted_rows(labels);
  if (masked_rows.count == 0)
    throw std::invalid_argument("Bert::masked_lm_loss: no masked position in the batch");
  const Variable flat = reshape(hidden, {labels.numel(), config_.hidden});
  const Variable masked = index_select(flat, 0, masked_rows.rows);
  // = cross_entropy(mlm_logits(masked), targets), without holding the logits (nn/loss.h)
  return nn::linear_cross_entropy(transform(masked), embeddings->word_embeddings->weight,
                                  output_bias, masked_rows.targets);
}

}  // namespace atencion::examples::bert

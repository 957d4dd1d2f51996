// examples/bert/classifier.cpp — see classifier.h. Lesson: docs/18-finetuning.md#the-head
#include "bert/classifier.h"

#include <algorithm>
#include <stdexcept>

#include "autograd/ops.h"
#include "nn/masks.h"
#include "tensor/ops.h"

namespace atencion::examples::bert {

ClassifierBatch classifier_batch(const std::vector<std::vector<int64_t>>& inputs,
                                 const std::vector<int64_t>& labels, const SpecialIds& special) {
  const auto batch = static_cast<int64_t>(inputs.size());
  int64_t longest = 0;
  std::vector<int64_t> lengths;
  for (const auto& input : inputs) {
    lengths.push_back(static_cast<int64_t>(input.size()));
    longest = std::max(longest, lengths.back());
  }
  std::vector<int64_t> ids(static_cast<size_t>(batch * longest), special.pad);
  std::vector<int64_t> types(ids.size(), 0);
  for (int64_t b = 0; b < batch; ++b) {
    const auto& input = inputs[static_cast<size_t>(b)];
    std::copy(input.begin(), input.end(), ids.begin() + b * longest);
    // Type 1 after the first [SEP] (the second sentence and its [SEP]).
    const auto first_sep = std::find(input.begin(), input.end(), special.sep);
    for (auto at = first_sep == input.end() ? input.end() : first_sep + 1; at != input.end(); ++at)
      types[static_cast<size_t>(b * longest + (at - input.begin()))] = 1;
  }
  return {Tensor::from_ids(ids, {batch, longest}), nn::padding_mask(lengths, longest),
          Tensor::from_ids(types, {batch, longest}),
          Tensor::from_ids(labels, {static_cast<int64_t>(labels.size())})};
}

std::vector<int64_t> encode_input(const Pieces& pieces, const std::string& a, const std::string& b,
                                  int64_t max_positions) {
  std::vector<int64_t> first = pieces.encode_text(a), second;
  if (!b.empty()) second = pieces.encode_text(b);
  const auto specials = static_cast<size_t>(b.empty() ? 2 : 3);  // [CLS], [SEP] (, [SEP])
  if (max_positions < static_cast<int64_t>(specials) + 2)
    throw std::invalid_argument("encode_input: " + std::to_string(max_positions) +
                                " positions cannot hold a pair");
  // Hugging Face's truncation="longest_first": a piece off the end of the longer one at a time.
  while (first.size() + second.size() + specials > static_cast<size_t>(max_positions))
    (first.size() >= second.size() ? first : second).pop_back();
  std::vector<int64_t> ids = {pieces.special().cls};
  ids.insert(ids.end(), first.begin(), first.end());
  ids.push_back(pieces.special().sep);
  if (b.empty()) return ids;
  ids.insert(ids.end(), second.begin(), second.end());
  ids.push_back(pieces.special().sep);
  return ids;
}

BertClassifier::BertClassifier(std::shared_ptr<Bert> bert_, int64_t labels, Generator& generator) {
  const int64_t hidden = bert_->config().hidden;
  bert = register_module("bert", std::move(bert_));
  pooler = register_module("pooler", std::make_shared<nn::Linear>(hidden, hidden, generator));
  dropout = register_module("dropout",
                            std::make_shared<nn::Dropout>(bert->config().dropout, generator));
  classifier =
      register_module("classifier", std::make_shared<nn::Linear>(hidden, labels, generator));
  // The masked-LM head is not read by a classifier: frozen, so no optimizer holds it.
  for (const auto& module : {std::static_pointer_cast<nn::Module>(bert->transform_dense),
                             std::static_pointer_cast<nn::Module>(bert->transform_norm)})
    for (auto& [name, parameter] : module->named_parameters()) parameter.set_requires_grad(false);
  bert->output_bias.set_requires_grad(false);
}

Variable BertClassifier::pool(const Variable& hidden) const {
  return tanh((*pooler)(select(hidden, 1, 0)));  // the [CLS] row, dense + tanh
}

Variable BertClassifier::forward(const ClassifierBatch& batch) {
  return (*classifier)((*dropout)(pool(bert->encode(batch.ids, batch.mask, batch.token_types))));
}

void BertClassifier::unfreeze_head() {
  for (const auto& linear : {pooler, classifier})
    for (auto& [name, parameter] : linear->named_parameters()) parameter.set_requires_grad(true);
}

std::string BertClassifier::type_name() const {
  return "BertClassifier(labels=" + std::to_string(classifier->weight.shape()[0]) + ")";
}

}  // namespace atencion::examples::bert

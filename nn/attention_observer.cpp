// nn/attention_observer.cpp — see attention_observer.h.
#include "nn/attention_observer.h"

#include <stdexcept>
#include <string>

#include "tensor/ops.h"

namespace atencion::nn {

Tensor AttentionObserver::observed_rows(const Tensor& weights) const {
  if (rows_.empty()) return weights;
  if (weights.dim() < 3)
    throw std::invalid_argument("AttentionObserver: rows asked of the weights " +
                                shape_to_string(weights.shape()) + ", which have no batch dim");
  for (int64_t row : rows_)
    if (row < 0 || row >= weights.size(0))
      throw std::invalid_argument("AttentionObserver: row " + std::to_string(row) +
                                  " outside the batch of " + std::to_string(weights.size(0)) +
                                  " (weights " + shape_to_string(weights.shape()) + ")");
  return index_select(weights, 0, Tensor::from_ids(rows_, {static_cast<int64_t>(rows_.size())}));
}

const std::vector<Tensor>& AttentionObserver::calls(const Module& attention) const {
  static const std::vector<Tensor> none;
  const auto found = calls_.find(&attention);
  return found == calls_.end() ? none : found->second;
}

const Tensor& AttentionObserver::weights(const Module& attention) const {
  const std::vector<Tensor>& made = calls(attention);
  if (made.size() != 1)
    throw std::invalid_argument("AttentionObserver::weights: the attention ran " +
                                std::to_string(made.size()) +
                                " times in the observed forward (calls() gives each)");
  return made.front();
}

}  // namespace atencion::nn

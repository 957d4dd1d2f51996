// nn/embedding.cpp — Lesson: docs/10-transformer.md#embeddings
#include "nn/embedding.h"

#include <stdexcept>

namespace atencion::nn {

Embedding::Embedding(int64_t vocab, int64_t d_model, int64_t padding_idx, Generator& generator)
    : vocab_(vocab), d_model_(d_model), padding_idx_(padding_idx) {
  if (vocab < 1 || d_model < 1 || padding_idx >= vocab)
    throw std::invalid_argument("Embedding(vocab=" + std::to_string(vocab) + ", d_model=" +
                                std::to_string(d_model) + ", padding_idx=" +
                                std::to_string(padding_idx) +
                                "): sizes must be >= 1 and padding_idx < vocab");
  Tensor initial = randn({vocab, d_model}, generator);
  if (padding_idx >= 0) initial.select(0, padding_idx).fill_(0.0);
  weight = register_parameter("weight", initial);
}

std::string Embedding::type_name() const {
  std::string name = "Embedding(vocab=" + std::to_string(vocab_) +
                     ", d_model=" + std::to_string(d_model_);
  if (padding_idx_ >= 0) name += ", padding_idx=" + std::to_string(padding_idx_);
  return name + ")";
}

Variable Embedding::forward(const Tensor& ids) const {
  if (ids.dtype() != DType::Int64)
    throw std::invalid_argument("Embedding: ids " + shape_to_string(ids.shape()) + " have dtype " +
                                dtype_name(ids.dtype()) + ", expected int64");
  // y = weight[ids]: index_select checks every id against [0, vocab) (std::out_of_range).
  Tensor rows = index_select(weight.value(), 0, ids);
  const Shape weight_shape = weight.shape();
  const int64_t padding_idx = padding_idx_;
  return record("embedding", rows, {weight}, [ids, weight_shape, padding_idx](const Tensor& g) {
    // dL/dweight[v] = Σ over positions p with ids[p] = v of g[p]; the padding row gets none.
    Tensor grad_weight = index_add(weight_shape, 0, ids, g);
    if (padding_idx >= 0) grad_weight.select(0, padding_idx).fill_(0.0);
    return Grads{grad_weight};
  });
}

}  // namespace atencion::nn

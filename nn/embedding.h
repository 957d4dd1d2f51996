// nn/embedding.h — a lookup table: token id → a learned vector of d_model numbers.
// Lesson: docs/10-transformer.md#embeddings
//
//   Embedding(ids)[..., :] = weight[id, :]         weight [vocab, d_model]
//
// As torch.nn.Embedding: weight drawn from N(0, 1); with a padding_idx, that row starts at zero
// and receives no gradient, so the padding token's vector stays zero through training.
// The gradient of a lookup adds each position's output gradient into the row of its id
// (index_add): a token used three times in a batch gets three contributions.
#pragma once

#include <cstdint>
#include <string>

#include "nn/module.h"
#include "tensor/random.h"

namespace atencion::nn {

class Embedding : public Module {
 public:
  // padding_idx < 0 means no padding row.
  Embedding(int64_t vocab, int64_t d_model, int64_t padding_idx, Generator& generator);
  Embedding(int64_t vocab, int64_t d_model, Generator& generator)
      : Embedding(vocab, d_model, -1, generator) {}

  // ids: Int64 of any shape, each in [0, vocab) -> [*ids.shape, d_model]
  Variable forward(const Tensor& ids) const;
  Variable operator()(const Tensor& ids) const { return forward(ids); }

  std::string type_name() const override;
  int64_t vocab() const { return vocab_; }
  int64_t d_model() const { return d_model_; }
  int64_t padding_idx() const { return padding_idx_; }

  Variable weight;  // [vocab, d_model]

 private:
  int64_t vocab_;
  int64_t d_model_;
  int64_t padding_idx_;
};

}  // namespace atencion::nn

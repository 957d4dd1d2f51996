// nn/positional_encoding.h — where each token is, added to what it is.
// Lesson: docs/10-transformer.md#positional-encoding
//
// Attention by itself ignores order (permuting the tokens permutes the output), so the paper
// adds to each embedding a fixed vector that depends on the position pos (§3.5):
//   PE[pos, 2i]     = sin(pos / 10000^(2i / d_model))
//   PE[pos, 2i + 1] = cos(pos / 10000^(2i / d_model))
// Each pair of dimensions is a sine/cosine of its own wavelength, from 2π up to 10000·2π, so
// PE[pos + k] is a fixed rotation of PE[pos] for any offset k.
//
// forward(x) = Dropout(x + PE[0:T]) for x [batch, T, d_model]. The table is a constant (no
// parameter, no gradient). The embeddings are multiplied by √d_model before this (paper §3.4;
// done in Transformer::embed_source / embed_target), so they are not drowned by PE's ±1.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nn/dropout.h"
#include "nn/module.h"
#include "tensor/random.h"

namespace atencion::nn {

class PositionalEncoding : public Module {
 public:
  PositionalEncoding(int64_t d_model, int64_t max_len, double dropout, Generator& generator);

  // x [batch, T, d_model] holding positions [first_position, first_position + T), which must
  // lie below max_len -> Dropout(x + PE[first_position : first_position + T]). first_position is
  // not 0 when decoding with a key/value cache: the new token sits after those decoded so far.
  Variable forward(const Variable& x, int64_t first_position = 0);
  Variable operator()(const Variable& x, int64_t first_position = 0) {
    return forward(x, first_position);
  }

  // Each row from its own position (rows decoded together at different steps: continuous
  // batching, nn/decoder_cache.h): row b of x [batch, T, d_model] holds positions
  // [first_positions[b], first_positions[b] + T) -> Dropout(x + PE[those]), the same numbers as
  // forward(x[b], first_positions[b]) gives.
  Variable forward(const Variable& x, const std::vector<int64_t>& first_positions);

  // The table PE [max_len, d_model] (Float64), for tests and plots.
  const Tensor& table() const { return table_; }

  std::string type_name() const override;
  int64_t d_model() const { return d_model_; }
  int64_t max_len() const { return max_len_; }

  std::shared_ptr<Dropout> dropout;

 private:
  int64_t d_model_;
  int64_t max_len_;
  Tensor table_;          // Float64 [max_len, d_model]
  Tensor table_float32_;  // the same in Float32, made once
};

}  // namespace atencion::nn

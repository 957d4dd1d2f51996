// nn/attention_observer.h — the attention weights of one forward, for the rows a caller asks for.
// Lesson: docs/05-scaled-dot-product-attention.md#looking-at-the-weights
//
// No module keeps what a call computed: to see the weights softmax(mask(Q Kᵀ / √d_k)) of a
// forward (before dropout: each row sums to 1, or is all zero), hand it an observer. Every
// forward that runs attention takes one as its last argument (ScaledDotProductAttention,
// MultiHeadAttention, the encoder and decoder layers and stacks, Transformer::encode / decode /
// forward, the GPT and BERT models); each attention it runs gives the observer its weights of
// the observed batch rows, [rows, heads, m_q, m_k] under MultiHeadAttention. So a server gets
// the maps of a whole batch from the forward that made its answers, and two forwards may run at
// once, each with its own observer (or none).
//
// The weights are filed under the ScaledDotProductAttention that computed them (a
// MultiHeadAttention's `attention`), one tensor per call in call order: a decoder stepping with a
// key/value cache calls each attention once per new position.
//
//   nn::AttentionObserver observer({0});              // batch row 0 only
//   model.forward(source, target, source_mask, target_mask, memory_mask, &observer);
//   observer.weights(*model.decoder->layers[1]->cross_attn->attention)   // [1, heads, T, S]
//
// On the fused path (docs/14-flash-attention.md) the kernel never holds the weights: an observed
// attention computes them for the observed rows only, by the step-by-step lines, from the same
// query, key and mask. Its output is still the fused kernel's, and an unobserved forward does
// no extra work.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "tensor/tensor.h"

namespace atencion::nn {

class Module;

class AttentionObserver {
 public:
  // `rows`: the batch rows (the weights' first dim) to keep, in this order; empty: every row.
  explicit AttentionObserver(std::vector<int64_t> rows = {}) : rows_(std::move(rows)) {}

  const std::vector<int64_t>& rows() const { return rows_; }

  // The observed rows of `weights` [batch, ..., m_q, m_k]: all of it when every row is observed.
  // Throws std::invalid_argument for a row outside the batch, or rows asked of 2-D weights
  // (no batch dim).
  Tensor observed_rows(const Tensor& weights) const;
  // What an attention calls with its observed weights (observed_rows of them).
  void keep(const Module& attention, Tensor weights) {
    calls_[&attention].push_back(std::move(weights));
  }

  // Every call's weights from `attention`, in call order (empty: it did not run).
  const std::vector<Tensor>& calls(const Module& attention) const;
  // The weights of `attention`'s one call; throws std::invalid_argument when it ran no times or
  // more than once.
  const Tensor& weights(const Module& attention) const;

 private:
  std::vector<int64_t> rows_;
  std::map<const Module*, std::vector<Tensor>> calls_;
};

}  // namespace atencion::nn

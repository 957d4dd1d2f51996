// tests/nn/test_attention_observer.cpp — nn/attention_observer.h: an observed forward hands out
// softmax(Q Kᵀ / √d_k + mask) of the rows asked for, computed here by hand in float64, on both
// paths, for self, masked and cross attention; a batch gives each row the maps it gets alone;
// the module keeps nothing.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "nn/masks.h"
#include "nn/multi_head_attention.h"
#include "nn/transformer.h"
#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;
using Path = ScaledDotProductAttention::Path;

namespace {

// mask[b, h, i, j] of a Bool mask broadcasting to [batch, heads, m_q, m_k] (undefined: true).
bool may_attend(const Tensor& mask, int64_t b, int64_t h, int64_t i, int64_t j) {
  if (!mask.defined()) return true;
  const int64_t index[4] = {b, h, i, j};
  std::vector<int64_t> at;
  for (int64_t d = 0; d < mask.dim(); ++d) {
    const int64_t full = index[4 - mask.dim() + d];
    at.push_back(mask.size(d) == 1 ? 0 : full);
  }
  return mask.at(at) != 0.0;
}

// softmax(Q_h K_hᵀ / √head_dim + mask) [batch, heads, m_q, m_k] from the projections
// [batch, m, d_model], loop by loop: the formula of docs/05 with nothing of the library's
// attention in it. A row whose keys are all masked is all zero.
Tensor weights_by_hand(const Tensor& query, const Tensor& key, const Tensor& mask, int64_t heads) {
  const int64_t batch = query.size(0), m_q = query.size(1), m_k = key.size(1);
  const int64_t head_dim = query.size(2) / heads;
  Tensor out = Tensor::zeros({batch, heads, m_q, m_k}, DType::Float64);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < m_q; ++i) {
        std::vector<double> scores(m_k, -std::numeric_limits<double>::infinity());
        double largest = -std::numeric_limits<double>::infinity(), total = 0;
        for (int64_t j = 0; j < m_k; ++j) {
          if (!may_attend(mask, b, h, i, j)) continue;
          double dot = 0;
          for (int64_t d = 0; d < head_dim; ++d)
            dot += query.at({b, i, h * head_dim + d}) * key.at({b, j, h * head_dim + d});
          scores[j] = dot / std::sqrt(static_cast<double>(head_dim));
          largest = std::max(largest, scores[j]);
        }
        if (largest == -std::numeric_limits<double>::infinity()) continue;
        for (double score : scores) total += std::exp(score - largest);
        for (int64_t j = 0; j < m_k; ++j)
          out.set({b, h, i, j}, std::exp(scores[j] - largest) / total);
      }
  return out;
}

double max_difference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  return max(abs(sub(a.to(DType::Float64), b.to(DType::Float64)))).item();
}

}  // namespace

TEST_CASE("AttentionObserver: the weights of self, masked and cross attention, both paths",
          "[attention_observer]") {
  Generator generator(31);
  MultiHeadAttention attention(12, 3, generator);
  attention.to(DType::Float64);
  // 70 keys: more than the fused kernel's tile, so Path::Auto would take it.
  const int64_t m = 70, m_memory = 66;
  const Tensor x = randn({3, m, 12}, generator, DType::Float64);
  const Tensor memory = randn({3, m_memory, 12}, generator, DType::Float64);
  const Tensor masked = combine_masks(causal_mask(m), padding_mask({m, 40, 9}, m));
  const Tensor memory_mask = padding_mask({m_memory, 5, 30}, m_memory);
  struct Use {
    const char* name;
    Tensor query, key, mask;
  };
  for (const Use& use : {Use{"self", x, x, Tensor()}, Use{"masked self", x, x, masked},
                         Use{"cross", x, memory, memory_mask}}) {
    NoGradGuard no_grad;
    const Tensor expected = weights_by_hand((*attention.q_proj)(Variable(use.query)).value(),
                                            (*attention.k_proj)(Variable(use.key)).value(),
                                            use.mask, attention.heads());
    for (const Path path : {Path::Fused, Path::StepByStep}) {
      for (const std::vector<int64_t>& rows : {std::vector<int64_t>{}, {2, 0}}) {
        INFO(use.name << ", fused " << (path == Path::Fused) << ", rows " << rows.size());
        attention.attention->set_path(path);
        AttentionObserver observer(rows);
        const Tensor output = attention(Variable(use.query), Variable(use.key), Variable(use.key),
                                        use.mask, nullptr, &observer)
                                  .value();
        const Tensor wanted =
            rows.empty() ? expected : index_select(expected, 0, Tensor::from_ids(rows, {2}));
        CHECK(max_difference(observer.weights(*attention.attention), wanted) < 1e-12);
        // The output is the unobserved forward's, bit for bit.
        CHECK(max_difference(output, attention(Variable(use.query), Variable(use.key),
                                               Variable(use.key), use.mask)
                                         .value()) == 0.0);
      }
    }
  }
}

TEST_CASE("AttentionObserver: a padded batch gives each row the maps it gets alone",
          "[attention_observer]") {
  Generator generator(32);
  TransformerConfig config{.src_vocab = 13, .tgt_vocab = 11, .d_model = 8, .heads = 2,
                           .encoder_layers = 2, .decoder_layers = 2, .d_ff = 16, .dropout = 0.0};
  Transformer model(config, generator);
  model.to(DType::Float64);
  model.eval();
  NoGradGuard no_grad;
  const std::vector<std::vector<int64_t>> sources = {{4, 5, 6, 7, 8}, {9, 3}};
  const std::vector<std::vector<int64_t>> targets = {{2, 5, 6}, {2, 7, 8, 9}};
  // The batch: sources padded to 5, targets to 4 (with id 0), padding masked.
  const Tensor source = Tensor::from_ids({4, 5, 6, 7, 8, 9, 3, 0, 0, 0}, {2, 5});
  const Tensor target = Tensor::from_ids({2, 5, 6, 0, 2, 7, 8, 9}, {2, 4});
  const Tensor source_mask = padding_mask({5, 2}, 5);
  AttentionObserver batch;
  model.forward(source, target, source_mask, causal_mask(4), source_mask, &batch);
  for (int64_t row = 0; row < 2; ++row) {
    const auto s = static_cast<int64_t>(sources[row].size()),
               t = static_cast<int64_t>(targets[row].size());
    AttentionObserver alone;
    model.forward(Tensor::from_ids(sources[row], {1, s}), Tensor::from_ids(targets[row], {1, t}),
                  Tensor(), causal_mask(t), Tensor(), &alone);
    auto compare = [&](const ScaledDotProductAttention& attention, int64_t queries, int64_t keys) {
      const Tensor batched =
          batch.weights(attention).select(0, row).narrow(1, 0, queries).narrow(2, 0, keys);
      CHECK(max_difference(batched, alone.weights(attention).select(0, 0)) < 1e-12);
    };
    for (const auto& layer : model.encoder->layers) compare(*layer->self_attn->attention, s, s);
    for (const auto& layer : model.decoder->layers) {
      compare(*layer->self_attn->attention, t, t);
      compare(*layer->cross_attn->attention, t, s);
    }
  }
}

TEST_CASE("AttentionObserver: one tensor per call, the module keeps nothing",
          "[attention_observer]") {
  Generator generator(33);
  ScaledDotProductAttention attention;
  const Variable x(randn({2, 4, 3}, generator, DType::Float64));
  AttentionObserver observer;
  attention(x, x, x, Tensor(), &observer);
  attention(Variable(x.value().narrow(1, 0, 2)), x, x, Tensor(), &observer);
  REQUIRE(observer.calls(attention).size() == 2);
  CHECK(observer.calls(attention)[1].shape() == Shape{2, 2, 4});
  CHECK(max_difference(observer.calls(attention)[1], observer.calls(attention)[0].narrow(1, 0, 2)) <
        1e-15);
  // An unobserved call changes nothing the observer holds.
  attention(x, x, x);
  CHECK(observer.calls(attention).size() == 2);
  ScaledDotProductAttention other;
  CHECK(observer.calls(other).empty());
}

TEST_CASE("AttentionObserver: errors name the rows and the shapes", "[attention_observer]") {
  Generator generator(34);
  ScaledDotProductAttention attention;
  const Variable batch(randn({2, 4, 3}, generator));
  AttentionObserver outside({2});
  CHECK_THROWS_WITH(attention(batch, batch, batch, Tensor(), &outside),
                    "AttentionObserver: row 2 outside the batch of 2 (weights [2, 4, 4])");
  const Variable flat(randn({4, 3}, generator));
  AttentionObserver rows({0});
  CHECK_THROWS_WITH(attention(flat, flat, flat, Tensor(), &rows),
                    "AttentionObserver: rows asked of the weights [4, 4], which have no batch dim");
  AttentionObserver observer;
  CHECK_THROWS_WITH(observer.weights(attention),
                    "AttentionObserver::weights: the attention ran 0 times in the observed "
                    "forward (calls() gives each)");
  attention(batch, batch, batch, Tensor(), &observer);
  attention(batch, batch, batch, Tensor(), &observer);
  CHECK_THROWS_WITH(observer.weights(attention), Contains("ran 2 times"));
}

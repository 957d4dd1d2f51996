// tests/nn/test_scaled_dot_product_attention_paths.cpp — the two paths of
// nn/scaled_dot_product_attention.cpp give one result: the fused kernel (the default beyond one
// tile of keys) and the
// step-by-step lines agree to 1e-12 in float64 (outputs and the gradients of query, key and
// value) over many shapes, masks and dropout seeds; an observer gets the same weights from both;
// a whole Transformer computes the same hidden states and decodes the same tokens both ways;
// the fused kernel's bits do not depend on the number of threads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "autograd/ops.h"
#include "nn/decoder_cache.h"
#include "nn/masks.h"
#include "nn/multi_head_attention.h"
#include "nn/scaled_dot_product_attention.h"
#include "nn/transformer.h"
#include "tensor/flash_attention.h"
#include "tensor/random.h"
#include "tensor/threads.h"

using namespace atencion;
using namespace atencion::nn;
using Path = ScaledDotProductAttention::Path;

namespace {

// `steps` greedy steps from bos (2) for each source row, with the decoder's cache
// (nn/decoder_cache.h): the tokens chosen, row after row.
std::vector<std::vector<int64_t>> greedy_steps(Transformer& model, const Tensor& source,
                                               const Tensor& source_mask, int steps) {
  DecoderCache cache =
      start_decoding(model, model.encode(source, source_mask).value(), source_mask);
  std::vector<int64_t> newest(static_cast<size_t>(source.size(0)), 2);
  std::vector<std::vector<int64_t>> chosen(newest.size());
  for (int step = 0; step < steps; ++step) {
    const std::vector<double> best = argmax(decode_step(model, cache, newest), -1).to_vector();
    for (size_t r = 0; r < newest.size(); ++r) chosen[r].push_back(newest[r] = static_cast<int64_t>(best[r]));
  }
  return chosen;
}

double max_difference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  const std::vector<double> x = a.to_vector(), y = b.to_vector();
  double largest = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isinf(x[i]) || std::isinf(y[i])) {
      if (x[i] != y[i]) return INFINITY;
      continue;
    }
    largest = std::max(largest, std::abs(x[i] - y[i]));
  }
  return largest;
}

Tensor random(const Shape& shape, Generator& generator) {
  return uniform(shape, -2.0, 2.0, generator, DType::Float64);
}

// A Bool mask [m_q, m_k] with each entry visible with probability 0.6, and row 0 hidden whole.
Tensor random_mask(int64_t m_q, int64_t m_k, Generator& generator) {
  Tensor mask = lt(rand({m_q, m_k}, generator, DType::Float64),
                   Tensor::scalar(0.6, DType::Float64));
  for (int64_t j = 0; j < m_k; ++j) mask.set({0, j}, 0);
  return mask;
}

struct Run {
  Tensor output, query_grad, key_grad, value_grad;
  uint64_t generator_state;
  Tensor weights;  // what an observer received
};

// One forward and backward of `attention` on copies of the inputs, with `upstream` as dL/dO.
Run run(ScaledDotProductAttention& attention, const Tensor& query, const Tensor& key,
        const Tensor& value, const Tensor& mask, const Tensor& upstream, Dropout& dropout) {
  Variable q(query, true), k(key, true), v(value, true);
  AttentionObserver observer;
  Variable output = attention(q, k, v, mask, &observer);
  sum(mul(output, Variable(upstream))).backward();
  return {output.value(), q.grad(),
          k.grad(),       v.grad(),
          dropout.generator().state(), observer.weights(attention)};
}

void check_same(const Run& fused, const Run& step) {
  CHECK(max_difference(fused.output, step.output) < 1e-12);
  CHECK(max_difference(fused.query_grad, step.query_grad) < 1e-12);
  CHECK(max_difference(fused.key_grad, step.key_grad) < 1e-12);
  CHECK(max_difference(fused.value_grad, step.value_grad) < 1e-12);
  CHECK(fused.generator_state == step.generator_state);  // both drew the same number of words
}

}  // namespace

TEST_CASE("ScaledDotProductAttention: fused == step by step, shapes and masks (float64)",
          "[scaled_dot_product_attention][attention_paths]") {
  Generator generator(11);
  const std::vector<Shape> leading = {{}, {3}, {2, 3}};
  const std::vector<std::pair<int64_t, int64_t>> lengths = {
      {1, 1}, {1, 9}, {5, 5}, {7, 3}, {64, 64}, {65, 70}, {130, 129}, {3, 200}};
  for (const Shape& batch : leading) {
    for (const auto& [m_q, m_k] : lengths) {
      for (const int64_t d_k : {4, 16}) {
        const int64_t d_v = d_k == 4 ? 3 : 16;
        auto shape = [&](int64_t rows, int64_t cols) {
          Shape s = batch;
          s.push_back(rows);
          s.push_back(cols);
          return s;
        };
        const Tensor query = random(shape(m_q, d_k), generator);
        const Tensor key = random(shape(m_k, d_k), generator);
        const Tensor value = random(shape(m_k, d_v), generator);
        const Tensor upstream = random(shape(m_q, d_v), generator);
        std::vector<Tensor> masks = {Tensor(), random_mask(m_q, m_k, generator)};
        if (m_q == m_k) masks.push_back(causal_mask(m_q));
        if (!batch.empty()) {  // padding, one length per leading index of the first dim
          std::vector<int64_t> kept;
          for (int64_t b = 0; b < batch[0]; ++b) kept.push_back(std::max<int64_t>(0, m_k - 2 * b));
          Tensor padding = padding_mask(kept, m_k);  // [batch0, 1, 1, m_k]
          if (batch.size() == 1) padding = padding.squeeze(1);
          masks.push_back(combine_masks(padding, masks[1]));
        }
        for (size_t which = 0; which < masks.size(); ++which) {
          INFO("batch " << shape_to_string(batch) << ", m_q " << m_q << ", m_k " << m_k
                        << ", d_k " << d_k << ", mask " << which);
          ScaledDotProductAttention fused, step;
          fused.set_path(Path::Fused);
          step.set_path(Path::StepByStep);
          Dropout none(0.0, uint64_t{0});
          const Run fused_run = run(fused, query, key, value, masks[which], upstream, none);
          const Run step_run = run(step, query, key, value, masks[which], upstream, none);
          check_same(fused_run, step_run);
          CHECK(max_difference(fused_run.weights, step_run.weights) == 0.0);
        }
      }
    }
  }
}

TEST_CASE("ScaledDotProductAttention: fused == step by step with dropout, seed by seed",
          "[scaled_dot_product_attention][attention_paths]") {
  Generator generator(12);
  const Tensor query = random({2, 3, 70, 8}, generator), key = random({2, 3, 66, 8}, generator),
               value = random({2, 3, 66, 5}, generator),
               upstream = random({2, 3, 70, 5}, generator);
  const Tensor mask = random_mask(70, 66, generator);
  for (const uint64_t seed : {1, 2, 3, 99}) {
    for (const double p : {0.1, 0.5}) {
      INFO("seed " << seed << ", p " << p);
      Generator fused_seed(seed), step_seed(seed);
      ScaledDotProductAttention fused(p, fused_seed), step(p, step_seed);
      fused.set_path(Path::Fused);
      step.set_path(Path::StepByStep);
      auto& fused_dropout = *std::dynamic_pointer_cast<Dropout>(fused.named_modules()[0].second);
      auto& step_dropout = *std::dynamic_pointer_cast<Dropout>(step.named_modules()[0].second);
      // Two calls each: the second draws a new mask, the same one on both paths.
      for (int call = 0; call < 2; ++call) {
        check_same(run(fused, query, key, value, mask, upstream, fused_dropout),
                   run(step, query, key, value, mask, upstream, step_dropout));
      }
    }
  }
}

TEST_CASE("ScaledDotProductAttention: the default (Auto) runs step by step while the keys fit "
          "one tile, fused beyond", "[scaled_dot_product_attention][attention_paths]") {
  Generator generator(21);
  for (const int64_t m_k : {int64_t{1}, int64_t{20}, kFlashKeyTile, kFlashKeyTile + 1, int64_t{130}}) {
    INFO("m_k " << m_k);
    const Tensor query = random({2, 7, 8}, generator), key = random({2, m_k, 8}, generator),
                 value = random({2, m_k, 5}, generator), upstream = random({2, 7, 5}, generator);
    ScaledDotProductAttention automatic, fused, step;
    fused.set_path(Path::Fused);
    step.set_path(Path::StepByStep);
    CHECK(automatic.path() == Path::Auto);
    Dropout none(0.0, uint64_t{0});
    const Run chosen = run(automatic, query, key, value, Tensor(), upstream, none);
    const Run expected = run(m_k > kFlashKeyTile ? fused : step, query, key, value, Tensor(),
                             upstream, none);
    // The same bits as the path Auto should have taken (the two paths agree only to ~1e-15).
    CHECK(max_difference(chosen.output, expected.output) == 0.0);
    CHECK(max_difference(chosen.query_grad, expected.query_grad) == 0.0);
    CHECK(max_difference(chosen.key_grad, expected.key_grad) == 0.0);
  }
}

TEST_CASE("flash_attention: the bits do not depend on the number of threads",
          "[scaled_dot_product_attention][attention_paths]") {
  Generator generator(13);
  const Tensor query = randn({2, 4, 200, 32}, generator), key = randn({2, 4, 200, 32}, generator),
               value = randn({2, 4, 200, 32}, generator),
               upstream = randn({2, 4, 200, 32}, generator);
  const Tensor mask = causal_mask(200);
  const int saved = num_threads();
  std::vector<std::vector<double>> results;
  for (const int threads : {1, 2, 3}) {
    set_num_threads(threads);
    const AttentionDropout dropout{0.2, Generator(5)};
    const FlashAttentionOutput forward =
        flash_attention_forward(query, key, value, mask, 0.25, dropout);
    const FlashAttentionGrads grads = flash_attention_backward(
        upstream, query, key, value, mask, forward.output, forward.logsumexp, 0.25, dropout);
    std::vector<double> all = forward.output.to_vector();
    for (const Tensor* t : {&grads.query, &grads.key, &grads.value}) {
      const std::vector<double> values = t->to_vector();
      all.insert(all.end(), values.begin(), values.end());
    }
    results.push_back(all);
  }
  set_num_threads(saved);
  CHECK(results[0] == results[1]);
  CHECK(results[0] == results[2]);
}

TEST_CASE("flash_attention: lesson 09's scale (queries and keys each divided by k^(1/4))",
          "[scaled_dot_product_attention][attention_paths]") {
  Generator generator(14);
  const int64_t k = 6;
  const Tensor x_query = random({2, 2, 9, k}, generator), x_key = random({2, 2, 9, k}, generator),
               value = random({2, 2, 9, k}, generator);
  const double fourth_root = std::pow(static_cast<double>(k), 0.25);
  const Tensor query = div(x_query, fourth_root), key = div(x_key, fourth_root);
  // docs/09-wide-attention.md: softmax((q / k^¼)(k / k^¼)ᵀ) v, causal
  Tensor scores = matmul(query, key, Trans::No, Trans::Yes);
  scores = masked_fill(scores, logical_not(causal_mask(9)), -INFINITY);
  const Tensor expected = matmul(softmax(scores, -1), value);
  const Tensor fused = flash_attention_forward(query, key, value, causal_mask(9), 1.0).output;
  CHECK(max_difference(fused, expected) < 1e-12);
  // ... which is the 1/√k scale on the unscaled queries and keys.
  const Tensor scaled =
      flash_attention_forward(x_query, x_key, value, causal_mask(9), 1.0 / std::sqrt(6.0)).output;
  CHECK(max_difference(scaled, expected) < 1e-12);
}

TEST_CASE("MultiHeadAttention: fused == step by step, self and cross, with padding",
          "[multi_head_attention][attention_paths]") {
  Generator generator(15);
  MultiHeadAttention attention(12, 3, generator);
  attention.to(DType::Float64);
  const Tensor x = random({2, 7, 12}, generator), memory = random({2, 5, 12}, generator);
  const Tensor self_mask = combine_masks(causal_mask(7), padding_mask({7, 4}, 7));
  const Tensor memory_mask = padding_mask({5, 2}, 5);
  for (const auto& [query, key, mask] :
       {std::tuple{x, x, self_mask}, std::tuple{x, memory, memory_mask},
        std::tuple{x.narrow(1, 6, 1), memory, memory_mask}}) {  // query length 1, as in decoding
    Tensor outputs[2], weights[2];
    for (const Path path : {Path::Fused, Path::StepByStep}) {
      attention.attention->set_path(path);
      AttentionObserver observer;
      outputs[path == Path::Fused] =
          attention(Variable(query), Variable(key), Variable(key), mask, nullptr, &observer).value();
      weights[path == Path::Fused] = observer.weights(*attention.attention);
    }
    CHECK(max_difference(outputs[0], outputs[1]) < 1e-12);
    CHECK(max_difference(weights[0], weights[1]) == 0.0);
  }
}

TEST_CASE("Transformer: the same hidden states, loss gradients and decoded tokens both ways",
          "[transformer][attention_paths]") {
  TransformerConfig config{.src_vocab = 11, .tgt_vocab = 9, .d_model = 8, .heads = 2,
                           .encoder_layers = 2, .decoder_layers = 2, .d_ff = 16,
                           .dropout = 0.1, .max_len = 24, .norm_first = false,
                           .tie_target_embeddings = false, .padding_idx = 0};
  Generator generator(16);
  Transformer model(config, generator);
  model.to(DType::Float64);
  model.eval();
  const Tensor source = Tensor::from_ids({4, 5, 6, 7, 8, 9, 1, 0, 0, 0}, {2, 5});
  const Tensor target = Tensor::from_ids({2, 3, 4, 5, 2, 6, 0, 0}, {2, 4});
  const Tensor source_mask = padding_mask({5, 2}, 5);
  const Tensor target_mask = combine_masks(causal_mask(4), padding_mask({4, 2}, 4));
  Tensor states[2], grads[2];
  std::vector<std::vector<int64_t>> tokens[2];
  for (const Path path : {Path::Fused, Path::StepByStep}) {
    set_attention_path(model, path);
    model.zero_grad();
    const Variable memory = model.encode(source, source_mask);
    const Variable hidden = model.decode_states(target, memory, target_mask, source_mask);
    sum(mul(hidden, hidden)).backward();
    states[path == Path::Fused] = hidden.value();
    grads[path == Path::Fused] = model.named_parameters()[0].second.grad();
    NoGradGuard no_grad;
    tokens[path == Path::Fused] = greedy_steps(model, source, source_mask, 10);
  }
  CHECK(max_difference(states[0], states[1]) < 1e-12);
  CHECK(max_difference(grads[0], grads[1]) < 1e-12);
  CHECK(tokens[0] == tokens[1]);
}

// bench/bench_train_step.cpp — one training step of a tiny translation Transformer, in target
// tokens per second. Compare with torch.nn.Transformer doing the same step: bench/compare.py.
//
//   train_step/tiny   nn::Transformer with d_model 128, 4 heads, 2 + 2 layers, d_ff 512,
//                     dropout 0.1, vocabularies of 4000; a batch of 64 pairs with 20 tokens on
//                     each side and a causal target mask; label-smoothed (0.1) cross-entropy;
//                     zero_grad, forward, backward and one Adam step per iteration.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "autograd/variable.h"
#include "nn/loss.h"
#include "nn/masks.h"
#include "nn/optim/adam.h"
#include "nn/transformer.h"
#include "tensor/random.h"

namespace {

using atencion::Tensor;
using atencion::Variable;

constexpr int64_t kBatch = 64, kTokens = 20, kVocabulary = 4000;

// [batch, tokens] ids drawn uniformly from the vocabulary.
Tensor random_ids(atencion::Generator& generator) {
  std::vector<int64_t> ids(kBatch * kTokens);
  for (int64_t& id : ids) id = static_cast<int64_t>(generator.uniform() * kVocabulary);
  return Tensor::from_ids(ids, {kBatch, kTokens});
}

void train_step_tiny(benchmark::State& state) {
  atencion::Generator generator(42);
  atencion::nn::TransformerConfig config;
  config.src_vocab = config.tgt_vocab = kVocabulary;
  config.d_model = 128;
  config.heads = 4;
  config.encoder_layers = config.decoder_layers = 2;
  config.d_ff = 512;
  config.dropout = 0.1;
  atencion::nn::Transformer model(config, generator);
  atencion::nn::Adam optimizer(model.parameters(), {});
  const Tensor source = random_ids(generator);
  const Tensor target_input = random_ids(generator);
  const Tensor target_output = random_ids(generator);
  const Tensor target_mask = atencion::nn::causal_mask(kTokens);
  const atencion::nn::CrossEntropyOptions loss_options{.label_smoothing = 0.1};

  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    optimizer.zero_grad();
    Variable logits = model.forward(source, target_input, Tensor(), target_mask);
    Variable loss = atencion::nn::cross_entropy(logits, target_output, loss_options);
    loss.backward();
    optimizer.step();
    benchmark::DoNotOptimize(loss.item());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double target_tokens = static_cast<double>(kBatch * kTokens * state.iterations());
  state.counters["tokens_per_second"] = benchmark::Counter(target_tokens / seconds);
}

}  // namespace

BENCHMARK(train_step_tiny)->Name("train_step/tiny")->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();

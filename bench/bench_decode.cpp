// bench/bench_decode.cpp — translating with the translator's default model, in sentences per
// second: greedy and beam 4 as `atencion-translate translate` runs them (the key/value cache of
// nn/decoder_cache.h, 64 sources a batch), and as it ran them before the cache: each sentence
// alone, the whole prefix through the decoder at every step (`_uncached_alone`).
//
// The model is examples/translate's default (model_defaults.h: d_model 256, 4 heads, 2 + 2 layers, d_ff 1024,
// max_len 128, vocabularies of 8000) with random weights from a fixed seed, in eval mode. The
// sources are 64 fixed sentences of 4 to 14 ids (short, as the shipped pairs of at most 10
// words a side) drawn from the same seed, decoded in one decoding::decode call (sorted by length into
// batches). Random weights almost never choose eos, so every sentence runs to max_length 16:
// the rate is for outputs of 16 pieces.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "base/decoding/encoder_decoder.h"
#include "nn/transformer.h"
#include "tensor/random.h"
#include "translate/model_defaults.h"

namespace {

constexpr int64_t vocabulary = 8000, sentences = 64, output_length = 16;

std::vector<std::vector<int64_t>> fixed_sources(atencion::Generator& generator) {
  std::vector<std::vector<int64_t>> sources;
  for (int64_t s = 0; s < sentences; ++s) {
    const int64_t length = 4 + static_cast<int64_t>(generator.uniform() * 11);
    std::vector<int64_t> ids;  // ordinary pieces: above pad, unk, bos and eos (0 to 3)
    for (int64_t i = 0; i < length; ++i)
      ids.push_back(4 + static_cast<int64_t>(generator.uniform() * (vocabulary - 4)));
    sources.push_back(ids);
  }
  return sources;
}

void decode_sentences(benchmark::State& state, int64_t beam, bool use_cache, int64_t batch_size) {
  atencion::Generator generator(42);
  atencion::nn::TransformerConfig config = atencion::examples::translate::default_model();
  config.src_vocab = config.tgt_vocab = vocabulary;
  config.padding_idx = 0;
  atencion::nn::Transformer model(config, generator);
  model.eval();
  const auto sources = fixed_sources(generator);
  atencion::examples::decoding::DecodeOptions options;  // pad 0, bos 2, eos 3, as the translator's tokenizers
  options.beam = beam;
  options.max_length = output_length;
  options.use_cache = use_cache;
  options.batch_size = batch_size;

  int64_t output_tokens = 0;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    const auto outputs = atencion::examples::decoding::decode(model, sources, options);
    for (const auto& output : outputs) output_tokens += static_cast<int64_t>(output.size());
    benchmark::DoNotOptimize(outputs.data());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double decoded = static_cast<double>(sentences * state.iterations());
  state.counters["sentences_per_second"] = benchmark::Counter(decoded / seconds);
  state.counters["tokens_per_sentence"] = benchmark::Counter(output_tokens / decoded);
}

}  // namespace

BENCHMARK_CAPTURE(decode_sentences, greedy, 1, true, 64)
    ->Name("decode/greedy")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(decode_sentences, beam4, 4, true, 64)
    ->Name("decode/beam4")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(decode_sentences, greedy_uncached_alone, 1, false, 1)
    ->Name("decode/greedy_uncached_alone")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(decode_sentences, beam4_uncached_alone, 4, false, 1)
    ->Name("decode/beam4_uncached_alone")
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();

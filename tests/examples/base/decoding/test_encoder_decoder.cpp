// tests/examples/base/decoding/test_encoder_decoder.cpp — base/decoding/encoder_decoder.cpp:
// greedy, beam search and sampling of an encoder-decoder Transformer against plain loops over
// Transformer::forward on a tiny model, the beam's scores, with and without the cache, and the
// errors for bad options.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "base/decoding/encoder_decoder.h"
#include "nn/masks.h"
#include "nn/transformer.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::nn;
using namespace atencion::examples;
using namespace atencion::examples::decoding;
using Catch::Matchers::Contains;

namespace {

constexpr int64_t pad = 0, bos = 2, eos = 3;  // as the translator's tokenizers (unk = 1)

// A tiny post-norm Transformer with random weights: target vocabulary {pad, unk, bos, eos,
// 4, 5}, so the outputs mix eos and ordinary tokens.
TransformerConfig tiny_config() {
  return {.src_vocab = 9, .tgt_vocab = 6, .d_model = 8, .heads = 2, .encoder_layers = 1,
          .decoder_layers = 1, .d_ff = 16, .dropout = 0.1, .max_len = 16, .padding_idx = 0};
}

// The model for most cases, in eval mode: dropout off, as decode() runs it. The output biases
// are set by hand (unk rarer, eos a little likelier) so that outputs end both ways: by eos
// and by running out of max_length.
std::unique_ptr<Transformer> tiny_model(uint64_t seed, double eos_bias = 0.5) {
  Generator generator(seed);
  auto model = std::make_unique<Transformer>(tiny_config(), generator);
  model->output_projection->bias.mutable_value() =
      Tensor::from_vector(std::vector<double>{0, -1, 0, eos_bias, 0, 0}, {6});
  model->eval();
  return model;
}

DecodeOptions options(int64_t beam, int64_t max_length, double length_penalty = 0.6) {
  DecodeOptions o;
  o.beam = beam;
  o.max_length = max_length;
  o.length_penalty = length_penalty;
  o.pad_id = pad;
  o.bos_id = bos;
  o.eos_id = eos;
  return o;
}

// The logits of the token after `prefix`, from one full Transformer::forward (no cache, no
// batching: the reference the decoders are checked against).
Tensor next_logits(Transformer& model, const std::vector<int64_t>& source,
                   const std::vector<int64_t>& prefix) {
  NoGradGuard no_grad;
  const int64_t s = static_cast<int64_t>(source.size()), t = static_cast<int64_t>(prefix.size());
  const Tensor logits = model.forward(Tensor::from_ids(source, {1, s}),
                                      Tensor::from_ids(prefix, {1, t}), Tensor(),
                                      causal_mask(t), Tensor())
                            .value();
  return logits.select(0, 0).select(0, t - 1);
}

// log p(next | source, prefix) for every token.
std::vector<double> next_log_probs(Transformer& model, const std::vector<int64_t>& source,
                                   const std::vector<int64_t>& prefix) {
  return log_softmax(next_logits(model, source, prefix), -1).to_vector();
}

// Greedy, written out: append the most probable token (pad and bos never qualify) until eos.
std::vector<int64_t> greedy_by_forward(Transformer& model, const std::vector<int64_t>& source,
                                       int64_t max_length) {
  std::vector<int64_t> prefix{bos};
  for (int64_t step = 0; step < max_length; ++step) {
    const std::vector<double> log_probs = next_log_probs(model, source, prefix);
    int64_t best = -1;
    for (int64_t v = 0; v < static_cast<int64_t>(log_probs.size()); ++v)
      if (v != pad && v != bos && (best < 0 || log_probs[v] > log_probs[best])) best = v;
    if (best == eos) break;
    prefix.push_back(best);
  }
  return {prefix.begin() + 1, prefix.end()};
}

// log p(output [eos] | source): eos is counted when the output stopped before max_length.
double sequence_log_prob(Transformer& model, const std::vector<int64_t>& source,
                         const std::vector<int64_t>& output, int64_t max_length) {
  std::vector<int64_t> prefix{bos};
  double total = 0;
  for (size_t i = 0; i <= output.size(); ++i) {
    const bool at_end = i == output.size();
    if (at_end && static_cast<int64_t>(output.size()) == max_length) break;  // no eos
    total += next_log_probs(model, source, prefix)[at_end ? eos : output[i]];
    if (!at_end) prefix.push_back(output[i]);
  }
  return total;
}

const std::vector<std::vector<int64_t>> sources = {
    {4, 5, 6}, {7}, {8, 8, 4, 5, 6, 7}, {5, 4}, {6, 7, 8, 4}, {1, 4, 4, 4, 4}};

}  // namespace

TEST_CASE("decode: greedy equals an argmax loop over Transformer::forward", "[encoder_decoder]") {
  auto owned = tiny_model(3);
  Transformer& model = *owned;
  // All sources in one padded batch, sorted by length: padding must not change any output.
  const auto outputs = decode(model, sources, options(1, 8));
  REQUIRE(outputs.size() == sources.size());
  size_t stopped_by_eos = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    INFO("source " << i);
    CHECK(outputs[i] == greedy_by_forward(model, sources[i], 8));
    if (outputs[i].size() < 8) ++stopped_by_eos;
    for (int64_t token : outputs[i]) CHECK((token != pad && token != bos && token != eos));
  }
  // The model exercises both ends of the loop: eos, and running out of max_length.
  CHECK(stopped_by_eos > 0);
  CHECK(stopped_by_eos < sources.size());
  // One source at a time and in batches of 2 give the same outputs.
  DecodeOptions pairs = options(1, 8);
  pairs.batch_size = 2;
  CHECK(decode(model, sources, pairs) == outputs);
  CHECK(decode(model, {sources[2]}, options(1, 8))[0] == outputs[2]);
}

TEST_CASE("decode: gives the model back in the mode it found it", "[encoder_decoder]") {
  auto owned = tiny_model(3);
  Transformer& model = *owned;
  model.train();
  // Dropout is on in training mode: decoding must not use it (same output as in eval mode).
  const auto from_training = decode(model, sources, options(1, 8));
  CHECK(model.is_training());
  model.eval();
  CHECK(decode(model, sources, options(1, 8)) == from_training);
  CHECK_FALSE(model.is_training());
}

TEST_CASE("beam_search: width 1 makes greedy's choices", "[encoder_decoder]") {
  auto owned = tiny_model(3);
  Transformer& model = *owned;
  const auto greedy = decode(model, sources, options(1, 8));
  for (size_t i = 0; i < sources.size(); ++i) {
    INFO("source " << i);
    CHECK(beam_search(model, sources[i], options(1, 8, 0.0)) == greedy[i]);
    CHECK(beam_search(model, sources[i], options(1, 8, 0.6)) == greedy[i]);
  }
}

TEST_CASE("beam_search: a beam wide enough to keep every prefix finds the most probable output",
          "[encoder_decoder]") {
  auto owned = tiny_model(5);
  Transformer& model = *owned;
  // 4 tokens may come out (unk, eos, 4, 5); with max_length 3 there are at most 4^3 = 64
  // prefixes, so a beam of 64 drops none and its best is the best of all, found by brute force.
  constexpr int64_t max_length = 3;
  for (const auto& source : {sources[0], sources[2], sources[4]}) {
    double best = -std::numeric_limits<double>::infinity();
    std::vector<int64_t> best_output;
    std::function<void(std::vector<int64_t>&)> enumerate = [&](std::vector<int64_t>& output) {
      for (int64_t token : {1, 3, 4, 5}) {
        if (token == eos || static_cast<int64_t>(output.size()) + 1 == max_length) {
          // output + eos, or output + token reaching max_length without eos
          std::vector<int64_t> complete = output;
          if (token != eos) complete.push_back(token);
          const double log_prob = sequence_log_prob(model, source, complete, max_length);
          if (log_prob > best) {
            best = log_prob;
            best_output = complete;
          }
          continue;
        }
        output.push_back(token);
        enumerate(output);
        output.pop_back();
      }
    };
    std::vector<int64_t> empty;
    enumerate(empty);
    const auto found = beam_search(model, source, options(64, max_length, 0.0));
    CHECK(found == best_output);
    CHECK(sequence_log_prob(model, source, found, max_length) == Approx(best).margin(1e-9));
  }
}

TEST_CASE("beam_search: width 4 scores at least greedy's log-probability here", "[encoder_decoder]") {
  // Not a theorem for every model (greedy's prefix can fall out of a beam), but what beam
  // search is for; pinned on this model and these sources with length penalty 0.
  auto owned = tiny_model(3);
  Transformer& model = *owned;
  const auto greedy = decode(model, sources, options(1, 8));
  const auto beam = decode(model, sources, options(4, 8, 0.0));
  bool some_better = false;
  for (size_t i = 0; i < sources.size(); ++i) {
    INFO("source " << i);
    const double greedy_log_prob = sequence_log_prob(model, sources[i], greedy[i], 8);
    const double beam_log_prob = sequence_log_prob(model, sources[i], beam[i], 8);
    CHECK(beam_log_prob >= greedy_log_prob - 1e-9);
    some_better = some_better || beam_log_prob > greedy_log_prob + 1e-6;
  }
  CHECK(some_better);
}

TEST_CASE("decode: bad options give clear errors", "[encoder_decoder]") {
  auto owned = tiny_model(3);
  Transformer& model = *owned;
  CHECK_THROWS_WITH(
      decode(model, sources, options(0, 8)),
      Contains("decode: beam, max_length and batch_size must be at least 1 (got 0, 8"));
  CHECK_THROWS_WITH(decode(model, sources, options(1, 0)), Contains("(got 1, 0, 64)"));
  DecodeOptions no_batch = options(1, 8);
  no_batch.batch_size = 0;
  CHECK_THROWS_AS(decode(model, sources, no_batch), std::invalid_argument);
  DecodeOptions far_eos = options(2, 8);
  far_eos.eos_id = 6;
  CHECK_THROWS_WITH(beam_search(model, sources[0], far_eos),
                    Contains("decode: eos_id 6 is outside the target vocabulary [0, 6)"));
  DecodeOptions negative_bos = options(1, 8);
  negative_bos.bos_id = -1;
  CHECK_THROWS_WITH(decode(model, sources, negative_bos), Contains("bos_id -1 is outside"));
  DecodeOptions eos_is_pad = options(1, 8);
  eos_is_pad.eos_id = pad;
  CHECK_THROWS_WITH(decode(model, sources, eos_is_pad), Contains("eos_id 0 is also the pad"));
  CHECK(decode(model, {}, options(1, 8)).empty());
}

TEST_CASE("decode: on_step reports each source's output so far, changing no output",
          "[encoder_decoder]") {
  auto owned = tiny_model(3);
  Transformer& model = *owned;
  for (int64_t beam : {1, 3}) {
    INFO("beam " << beam);
    const auto plain = decode(model, sources, options(beam, 8));
    DecodeOptions watched = options(beam, 8);
    watched.batch_size = 2;  // sorted into batches: on_step still names sources by input index
    std::vector<std::vector<std::vector<int64_t>>> seen(sources.size());
    watched.on_step = [&](size_t source, const std::vector<int64_t>& output) {
      REQUIRE(source < sources.size());
      seen[source].push_back(output);
    };
    CHECK(decode(model, sources, watched) == plain);
    for (size_t i = 0; i < sources.size(); ++i) {
      INFO("source " << i);
      // A source is reported at most once per step, never past max_length.
      CHECK(seen[i].size() <= 8);
      for (size_t step = 0; step < seen[i].size(); ++step) {
        CHECK(seen[i][step].size() <= step + 1);
        // Greedy's output only grows, one token a step, towards its answer.
        if (beam == 1) {
          CHECK(seen[i][step].size() == step + 1);
          CHECK(std::equal(seen[i][step].begin(), seen[i][step].end(), plain[i].begin()));
        }
      }
      // A greedy source that ran to max_length was reported at its last step with its answer.
      if (beam == 1 && plain[i].size() == 8) CHECK((!seen[i].empty() && seen[i].back() == plain[i]));
    }
  }
}

TEST_CASE("decode: sampling draws what a loop over Transformer::forward draws, batched or alone",
          "[encoder_decoder]") {
  auto owned = tiny_model(3);
  Transformer& model = *owned;
  DecodeOptions sampled = options(1, 8);
  sampled.sample = true;
  sampled.sampling.temperature = 1.5;
  sampled.sampling.top_k = 4;
  sampled.sampling.top_p = 0.95;
  for (const uint64_t seed : {1, 2, 3}) {
    sampled.sampling.seed = seed;
    sampled.batch_size = 64;
    const auto outputs = decode(model, sources, sampled);
    sampled.batch_size = 2;
    CHECK(decode(model, sources, sampled) == outputs);
    bool some_not_greedy = false;
    for (size_t i = 0; i < sources.size(); ++i) {
      INFO("seed " << seed << ", source " << i);
      // Written out: the whole prefix through forward, pad and bos at -inf, one generator a
      // source from the seed, until eos or max_length.
      SplitMix64 generator(seed);
      std::vector<int64_t> prefix{bos};
      while (prefix.size() <= 8) {
        std::vector<double> logits = next_logits(model, sources[i], prefix).to_vector();
        logits[pad] = logits[bos] = -std::numeric_limits<double>::infinity();
        const int64_t token = draw(sampling_steps(logits, sampled.sampling).after_top_p, generator);
        if (token == eos) break;
        prefix.push_back(token);
      }
      CHECK(outputs[i] == std::vector<int64_t>(prefix.begin() + 1, prefix.end()));
      some_not_greedy = some_not_greedy || outputs[i] != greedy_by_forward(model, sources[i], 8);
    }
    CHECK(some_not_greedy);
  }
  sampled.beam = 2;
  CHECK_THROWS_WITH(decode(model, sources, sampled),
                    Contains("sampling draws one token a row, not a beam of 2"));
}

namespace {

// A random tiny Transformer in eval mode: post- or pre-norm, tied output or not, two decoder
// layers so that the cache of a layer feeds the next.
std::unique_ptr<Transformer> random_model(uint64_t seed, bool norm_first, bool tied) {
  TransformerConfig config{.src_vocab = 11, .tgt_vocab = 9, .d_model = 8, .heads = 2,
                           .encoder_layers = 1, .decoder_layers = 2, .d_ff = 16,
                           .dropout = 0.1, .max_len = 24, .norm_first = norm_first,
                           .tie_target_embeddings = tied, .padding_idx = pad};
  Generator generator(seed);
  auto model = std::make_unique<Transformer>(config, generator);
  model->eval();
  return model;
}

// `count` sources of 1 to 9 ids in [1, 11), drawn from `seed`.
std::vector<std::vector<int64_t>> random_sources(uint64_t seed, int64_t count) {
  Generator generator(seed);
  const std::vector<double> draws = uniform({count * 10}, 0.0, 1.0, generator).to_vector();
  std::vector<std::vector<int64_t>> out;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t length = 1 + static_cast<int64_t>(draws[i * 10] * 9);
    std::vector<int64_t> source;
    for (int64_t j = 1; j <= length; ++j)
      source.push_back(1 + static_cast<int64_t>(draws[i * 10 + j] * 10));
    out.push_back(source);
  }
  return out;
}

DecodeOptions cache_options(int64_t beam, bool use_cache, int64_t batch_size = 64) {
  DecodeOptions o = options(beam, 12);
  o.batch_size = batch_size;
  o.use_cache = use_cache;
  return o;
}

}  // namespace

TEST_CASE("decode: with and without the cache, batched or alone, the same tokens",
          "[encoder_decoder]") {
  // Many sources on several random models: greedy and beam 3, with the cache in batches of 64
  // and of 5 (padding, rows leaving the batch), against the uncached reference.
  const auto many = random_sources(99, 40);
  int64_t ended_by_eos = 0, total = 0;
  for (uint64_t seed : {1, 2, 3}) {
    const bool norm_first = seed == 2;
    auto model = random_model(seed, norm_first, seed == 3);
    // eos a little likelier, so outputs end both ways (eos and max_length).
    if (model->output_projection) {
      std::vector<double> bias(9, 0.0);
      bias[eos] = 1.5;
      model->output_projection->bias.mutable_value() = Tensor::from_vector(bias, {9});
    }
    for (const int64_t beam : {1, 3}) {
      INFO("seed " << seed << ", beam " << beam);
      const auto reference = decode(*model, many, cache_options(beam, false));
      CHECK(decode(*model, many, cache_options(beam, true)) == reference);
      CHECK(decode(*model, many, cache_options(beam, true, 5)) == reference);
      // One at a time, as the translator's stdin did before it batched.
      for (size_t i = 0; i < many.size(); i += 7)
        CHECK(decode(*model, {many[i]}, cache_options(beam, true))[0] == reference[i]);
      for (const auto& output : reference) {
        ended_by_eos += output.size() < 12;
        ++total;
      }
    }
  }
  CHECK(ended_by_eos > 0);
  CHECK(ended_by_eos < total);
}

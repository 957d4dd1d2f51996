// tests/examples/base/decoding/test_decoding_maps.cpp — base/decoding/decoding_maps.h and
// step_record.h: the maps and alternatives that decode() collects while it decodes (greedy and
// beam search, with and without the key/value cache, several sources of different lengths in
// one batch) equal those of one teacher-forced forward of (source, <s> output) alone, observed;
// outputs ended by eos and cut by max_length both.
#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
#include <vector>

#include "base/decoding/encoder_decoder.h"
#include "nn/masks.h"
#include "nn/transformer.h"
#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::nn;
using namespace atencion::examples::decoding;

namespace {

constexpr int64_t pad = 0, bos = 2, eos = 3;

// Two layers each, so that every layer's maps are compared; eos biased (by hand, for each
// search) so that some outputs end by eos within max_length and some are cut.
std::unique_ptr<Transformer> small_model(double eos_bias) {
  Generator generator(41);
  auto model = std::make_unique<Transformer>(
      TransformerConfig{.src_vocab = 11, .tgt_vocab = 10, .d_model = 16, .heads = 2,
                        .encoder_layers = 2, .decoder_layers = 2, .d_ff = 32, .dropout = 0.1,
                        .max_len = 16, .padding_idx = 0},
      generator);
  std::vector<double> bias(10, 0.0);
  bias[eos] = eos_bias;
  model->output_projection->bias.mutable_value() = Tensor::from_vector(bias, {10});
  return model;
}

DecodeOptions options(int64_t beam, bool use_cache) {
  DecodeOptions o;
  o.beam = beam;
  o.max_length = 6;
  o.use_cache = use_cache;
  o.pad_id = pad;
  o.bos_id = bos;
  o.eos_id = eos;
  return o;
}

void check_close(const Tensor& collected, const Tensor& forward, const char* what) {
  INFO(what);
  REQUIRE(collected.shape() == forward.shape());
  const std::vector<double> a = collected.to_vector(), b = forward.to_vector();
  for (size_t i = 0; i < a.size(); ++i) REQUIRE(a[i] == Approx(b[i]).margin(2e-6));
}

// Source `source` and its decoded `output` through one observed teacher-forced forward alone:
// the maps decode() collected must be its first T rows.
void check_against_forward(Transformer& model, const std::vector<int64_t>& source,
                           const std::vector<int64_t>& output, const DecodingMaps& maps) {
  std::vector<int64_t> target{bos};
  target.insert(target.end(), output.begin(), output.end());
  const auto s = static_cast<int64_t>(source.size()), t = static_cast<int64_t>(target.size());
  const int64_t rows = static_cast<int64_t>(maps.likeliest.size());
  CHECK((rows == t || rows == t - 1));  // eos chosen after the last token, or cut before it
  AttentionObserver observer;
  NoGradGuard no_grad;
  model.eval();
  const Tensor logits = model.forward(Tensor::from_ids(source, {1, s}),
                                      Tensor::from_ids(target, {1, t}), Tensor(),
                                      causal_mask(t), Tensor(), &observer)
                            .value()
                            .select(0, 0);
  for (size_t l = 0; l < model.encoder->layers.size(); ++l)
    check_close(maps.encoder_self[l],
                observer.weights(*model.encoder->layers[l]->self_attn->attention).select(0, 0),
                "encoder self-attention");
  for (size_t l = 0; l < model.decoder->layers.size(); ++l) {
    const DecoderLayer& layer = *model.decoder->layers[l];
    check_close(maps.decoder_self[l],
                observer.weights(*layer.self_attn->attention).select(0, 0).narrow(1, 0, rows)
                    .narrow(2, 0, rows),
                "decoder self-attention");
    check_close(maps.cross[l],
                observer.weights(*layer.cross_attn->attention).select(0, 0).narrow(1, 0, rows),
                "cross-attention");
  }
  const Tensor probabilities = softmax(logits, -1);
  for (int64_t i = 0; i < rows; ++i) {
    const auto& likeliest = maps.likeliest[static_cast<size_t>(i)];
    REQUIRE(likeliest.size() == 4);
    const int64_t best = static_cast<int64_t>(argmax(logits.select(0, i), -1).item());
    CHECK(likeliest[0].id == best);
    for (const Likely& choice : likeliest)
      CHECK(choice.probability == Approx(probabilities.at({i, choice.id})).margin(1e-6));
  }
}

}  // namespace

TEST_CASE("decoding maps: what decode collects while decoding is the teacher-forced forward's",
          "[decoding_maps]") {
  const std::vector<std::vector<int64_t>> sources = {
      {4, 5, 6, 7, 8, 9}, {5}, {7, 4, 9}, {10, 6, 5, 4}, {8, 8}, {9, 4, 6, 5, 7}};
  for (const int64_t beam : {1, 3})
    for (const bool use_cache : {true, false}) {
      CAPTURE(beam, use_cache);
      auto model = small_model(beam == 1 ? 0.6 : -0.25);  // beam search favours ending
      MapsCollection maps;
      maps.alternatives = 4;
      maps.wanted = {1, 1, 0, 1, 1, 1};
      const auto outputs = decode(*model, sources, options(beam, use_cache), &maps);
      CHECK(outputs == decode(*model, sources, options(beam, use_cache)));  // changes no output
      CHECK(maps.maps[2].likeliest.empty());                                 // not wanted
      size_t ended = 0, cut = 0;
      for (size_t i = 0; i < sources.size(); ++i) {
        if (i == 2) continue;
        CAPTURE(i);
        (maps.maps[i].likeliest.size() > outputs[i].size() ? ended : cut) += 1;
        check_against_forward(*model, sources[i], outputs[i], maps.maps[i]);
      }
      CHECK(ended > 0);
      CHECK(cut > 0);
    }
}

TEST_CASE("decoding maps: a wanted list of the wrong length is refused", "[decoding_maps]") {
  auto model = small_model(0);
  MapsCollection maps;
  maps.wanted = {1};
  CHECK_THROWS_WITH(decode(*model, {{4}, {5}}, options(1, true), &maps),
                    Catch::Contains("decode: maps wanted for 1 sources, but 2 given"));
}

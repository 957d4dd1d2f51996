// examples/base/decoding/encoder_decoder.h — decoding an encoder-decoder Transformer
// (nn/transformer.h: the translator, the copy task): its NextTokenScorer, and decode(), which
// encodes the sources in batches and runs search.h's greedy, beam search or sampling from bos.
// Lesson: docs/12-translation.md#decoding
//
// Each step needs the logits of the next token for every row (a source, or a hypothesis of its
// beam). By default only the newest token of each prefix goes through the decoder, with the
// keys and values of the earlier ones kept in a DecoderCache (nn/decoder_cache.h;
// docs/12-translation.md#the-key-value-cache); use_cache = false runs the whole prefix at every
// step instead: the slow, plain reference that the tests hold the cache to, token for token.
// decode() runs in eval mode without a graph (nn::EvalScope) and gives the model back in the
// mode it found it. Handed a MapsCollection (decoding_maps.h), it also gives each wanted
// source's attention maps and next-token alternatives, observed while it decodes: the encoder
// pass and each step hand their weights to an nn::AttentionObserver, and a StepRecord
// (step_record.h) between the search and the scorer says which row of each step an output came
// from.
#pragma once

#include <cstdint>
#include <vector>

#include "base/decoding/decoding_maps.h"
#include "base/decoding/search.h"
#include "nn/decoder_cache.h"
#include "nn/transformer.h"

namespace atencion::examples::decoding {

// search.h's options (beam, sample and sampling, max_length, length_penalty, eos_id, on_step;
// on_step names a source by its index in decode()'s `sources`), and the encoder-decoder's own.
struct DecodeOptions : SearchOptions {
  DecodeOptions() { eos_id = 3; }
  int64_t batch_size = 64;  // sources decoded at once (times beam rows for beam search)
  bool use_cache = true;    // false: recompute the whole prefix at every step
  int64_t pad_id = 0, bos_id = 2;  // never output; bos starts every output
};

// log p(next token | source, prefix) for each row's prefix comes from these logits, two ways
// that give the same numbers (tests/examples/base/decoding/test_encoder_decoder.cpp):
//   without the cache (the readable reference): the whole prefix through the decoder each step;
//   with it (nn/decoder_cache.h): only each prefix's newest token, through decode_step.
// Row r of the memory belongs to prefix r.
class EncoderDecoderScorer : public NextTokenScorer {
 public:
  // memory [sources, S, d_model] (Transformer::encode's output) and its padding mask. The cache
  // holds `positions` steps (one token each) of up to `rows` rows (sources × beam). `observer`
  // (optional): each step's decoder self- and cross-attention weights, one call a step.
  EncoderDecoderScorer(nn::Transformer& model, const Tensor& memory, const Tensor& memory_mask,
                       bool use_cache, int64_t positions, int64_t rows,
                       nn::AttentionObserver* observer = nullptr);
  Tensor logits(const std::vector<std::vector<int64_t>>& prefixes) override;
  void keep_rows(const std::vector<int64_t>& parents) override;

 private:
  Tensor logits_of_whole_prefixes(const std::vector<std::vector<int64_t>>& prefixes);

  nn::Transformer& model_;
  Tensor memory_, memory_mask_;
  bool use_cache_;
  nn::DecoderCache cache_;
  nn::AttentionObserver* observer_;
};

// The sources padded with pad_id into one batch and encoded (memory [sources, S, d_model]);
// `lengths` gets each source's length (at least 1: an empty source reads one pad) and
// `source_mask` their padding mask. decode() encodes each batch so; the server's continuous
// batching (continuous.h) its newcomers.
Tensor encode_sources(nn::Transformer& model, const std::vector<std::vector<int64_t>>& sources,
                      int64_t pad_id, std::vector<int64_t>& lengths, Tensor& source_mask,
                      nn::AttentionObserver* observer = nullptr);

// Output ids (no bos, no eos) for each source's ids. Sources run in batches of batch_size,
// sorted by length (so each batch pads little); beam search's rows are the alive hypotheses of
// every source in the batch. Padding and batching change no output: each source gets what it
// gets alone (sampling too: every source's generator starts from the same seed).
// `maps` (optional): filled with the wanted sources' maps and alternatives (decoding_maps.h);
// a batch with no wanted source is not observed. Throws std::invalid_argument for beam,
// max_length or batch_size below 1, for special ids outside the target vocabulary, for sampling
// with a beam, and for maps->wanted not one per source.
std::vector<std::vector<int64_t>> decode(nn::Transformer& model,
                                         const std::vector<std::vector<int64_t>>& sources,
                                         const DecodeOptions& options,
                                         MapsCollection* maps = nullptr);

// Beam search of width options.beam for one source, whatever the width (decode() uses greedy
// for width 1; this runs the beam code, e.g. to check that width 1 gives greedy's output).
std::vector<int64_t> beam_search(nn::Transformer& model, const std::vector<int64_t>& source,
                                 const DecodeOptions& options);

}  // namespace atencion::examples::decoding

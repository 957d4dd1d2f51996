// nn/decoding.h — from a trained Transformer to an output sequence: greedy and beam search.
// Lesson: docs/12-translation.md#decoding
//
// The decoder predicts one target token at a time from the source (through the encoder's
// memory) and the tokens it has produced so far, starting from bos:
//   greedy:  y_t = argmax_v p(v | source, y_<t), until eos or max_length.
//   beam:    keep the K best prefixes by total log-probability; extend each by every token and
//            keep the K best of the K·V candidates; a prefix that ends in eos is finished.
//            Finished prefixes are ranked by log p / lp(length) with GNMT's length penalty
//            lp(n) = ((5 + n) / 6)^alpha, so longer outputs are not punished merely for
//            having more factors below 1.
// Neither search ever outputs pad or bos (only eos and the ordinary tokens compete), so a beam of
// width 1 makes the same choices as greedy. Both run under NoGradGuard in eval mode (nothing is
// recorded) and give the model back in the mode they found it.
//
// Each step needs log p(· | source, prefix) for every row (a greedy row, or a hypothesis of the
// beam). By default only the newest token of each prefix goes through the decoder, with the
// keys and values of the earlier ones kept in a DecoderCache (nn/decoder_cache.h;
// docs/12-translation.md#the-key-value-cache); use_cache = false runs the whole prefix at every
// step instead: the slow, plain reference that the tests hold the cache to, token for token.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "nn/transformer.h"

namespace atencion::nn {

struct DecodeOptions {
  int64_t beam = 1;             // 1 = greedy
  int64_t max_length = 64;      // output tokens, eos excluded
  double length_penalty = 0.6;  // alpha of lp(n); 0 ranks by plain log-probability
  int64_t batch_size = 64;      // sources decoded at once (times beam rows for beam search)
  bool use_cache = true;        // false: recompute the whole prefix at every step
  int64_t pad_id = 0, bos_id = 2, eos_id = 3;
  // Called after every step with a source's output so far (its index in `sources`; ids without
  // bos and eos), for each source still searching: greedy's prefix, or beam search's best
  // hypothesis, by the same score as its answer. What a server streams while it decodes; it
  // changes no output.
  std::function<void(size_t source, const std::vector<int64_t>& output)> on_step;
};

// Output ids (no bos, no eos) for each source's ids. Sources run in batches of batch_size,
// sorted by length (so each batch pads little); beam search's rows are the alive hypotheses of
// every source in the batch. Padding and batching change no output: each source gets what it
// gets alone.
// Throws std::invalid_argument for beam, max_length or batch_size below 1 and for special
// ids outside the target vocabulary.
std::vector<std::vector<int64_t>> decode(Transformer& model,
                                         const std::vector<std::vector<int64_t>>& sources,
                                         const DecodeOptions& options);

// Beam search of width options.beam for one source, whatever the width (decode() uses greedy
// for width 1; this runs the beam code, e.g. to check that width 1 gives greedy's output).
std::vector<int64_t> beam_search(Transformer& model, const std::vector<int64_t>& source,
                                 const DecodeOptions& options);

}  // namespace atencion::nn

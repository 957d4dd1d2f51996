// examples/base/decoding/decoding_maps.h — an encoder-decoder's attention maps and next-token
// probabilities for one decoded output, read from the decoding that made it: the encoder's
// self-attention from decode()'s one encoder pass, each decoder row's self- and cross-attention
// from the (key/value-cached) step that fed that row, its alternatives from the same step's
// logits. No second forward.
// Lessons: docs/12-translation.md#heat-maps, docs/17-serving.md#the-api
//
// Decoder row i read the start and the output's first i tokens (<s> y1 .. yi) and chose y(i+1),
// or eos at the last row of an output that ended with it: T = the output's length + 1 then, its
// length when max_length cut it (no step read the last token). The rows equal those of one
// teacher-forced forward of (source, <s> output) with every attention observed
// (tests/examples/base/decoding/test_decoding_maps.cpp), within float rounding.
#pragma once

#include <cstdint>
#include <vector>

#include "base/decoding/step_record.h"
#include "nn/attention_observer.h"
#include "nn/transformer.h"

namespace atencion::examples::decoding {

struct DecodingMaps {
  std::vector<Tensor> encoder_self;  // per encoder layer, [heads, S, S]
  std::vector<Tensor> decoder_self;  // per decoder layer, [heads, T, T] (0 above the diagonal)
  std::vector<Tensor> cross;         // per decoder layer, [heads, T, S]
  std::vector<std::vector<Likely>> likeliest;  // per decoder row, best first
};

// What decode() collects beside its outputs when handed one.
struct MapsCollection {
  std::vector<char> wanted;        // per source: 1 to collect its maps (empty: every source)
  int64_t alternatives = 5;        // likeliest next tokens kept per decoder row
  std::vector<DecodingMaps> maps;  // decode() fills one per source (empty for the others)
};

// The maps of `output`, the decoding of batch row `source` (its length `source_length`, the
// batch's padding cut off), from the batch's `observer` (the encoder pass, then one call per
// step of every decoder attention) and `record` (its search's rows).
DecodingMaps decoding_maps(const nn::Transformer& model, const nn::AttentionObserver& observer,
                           const StepRecord& record, size_t source, int64_t source_length,
                           const std::vector<int64_t>& output);

}  // namespace atencion::examples::decoding

// examples/base/decoding/decoding_maps.cpp — see decoding_maps.h.
#include "base/decoding/decoding_maps.h"

#include "tensor/ops.h"

namespace atencion::examples::decoding {
namespace {

// The newest query's weights [heads, 1, keys] of row `row` of one call [rows, heads, q, keys]
// (a cached step has q = 1; a whole-prefix step's newest query is its last).
Tensor newest_query(const Tensor& call, int64_t row) {
  const Tensor weights = call.select(0, row);
  return weights.narrow(1, weights.size(1) - 1, 1);
}

// Decoder rows 0 .. T - 1 of one attention: step k's row rows[k], its first keys(k) keys.
Tensor stepped_rows(const std::vector<Tensor>& calls, const std::vector<int64_t>& rows,
                    int64_t keys_of_last_row, bool causal) {
  const int64_t t = static_cast<int64_t>(rows.size());
  const Tensor first = calls.at(0);
  Tensor result = Tensor::zeros({first.size(1), t, keys_of_last_row}, first.dtype());
  for (int64_t k = 0; k < t; ++k) {
    const int64_t keys = causal ? k + 1 : keys_of_last_row;
    result.narrow(1, k, 1).narrow(2, 0, keys).copy_(
        newest_query(calls.at(static_cast<size_t>(k)), rows[static_cast<size_t>(k)])
            .narrow(2, 0, keys));
  }
  return result;
}

}  // namespace

DecodingMaps decoding_maps(const nn::Transformer& model, const nn::AttentionObserver& observer,
                           const StepRecord& record, size_t source, int64_t source_length,
                           const std::vector<int64_t>& output) {
  const std::vector<int64_t> rows = record.rows(source, output);
  const auto s = source_length, t = static_cast<int64_t>(rows.size());
  DecodingMaps maps;
  for (const auto& layer : model.encoder->layers)
    maps.encoder_self.push_back(observer.weights(*layer->self_attn->attention)
                                    .select(0, static_cast<int64_t>(source))
                                    .narrow(1, 0, s)
                                    .narrow(2, 0, s)
                                    .contiguous());
  for (const auto& layer : model.decoder->layers) {
    maps.decoder_self.push_back(
        stepped_rows(observer.calls(*layer->self_attn->attention), rows, t, true));
    maps.cross.push_back(
        stepped_rows(observer.calls(*layer->cross_attn->attention), rows, s, false));
  }
  for (size_t k = 0; k < rows.size(); ++k) maps.likeliest.push_back(record.likeliest(k, rows[k]));
  return maps;
}

}  // namespace atencion::examples::decoding

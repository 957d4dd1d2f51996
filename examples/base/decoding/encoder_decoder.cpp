// examples/base/decoding/encoder_decoder.cpp — see encoder_decoder.h.
#include "base/decoding/encoder_decoder.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "nn/masks.h"
#include "nn/eval_scope.h"

namespace atencion::examples::decoding {
namespace {

// Pads `rows` into an Int64 [rows, longest] tensor; `lengths` gets each row's length.
Tensor pad_rows(const std::vector<std::vector<int64_t>>& rows, int64_t pad_id,
                std::vector<int64_t>& lengths) {
  int64_t longest = 1;
  for (const auto& row : rows) longest = std::max<int64_t>(longest, row.size());
  std::vector<int64_t> ids(rows.size() * longest, pad_id);
  lengths.clear();
  for (size_t r = 0; r < rows.size(); ++r) {
    std::copy(rows[r].begin(), rows[r].end(), ids.begin() + r * longest);
    lengths.push_back(std::max<int64_t>(1, rows[r].size()));
  }
  return Tensor::from_ids(ids, {static_cast<int64_t>(rows.size()), longest});
}

void check_options(const nn::Transformer& model, const DecodeOptions& options) {
  if (options.beam < 1 || options.max_length < 1 || options.batch_size < 1)
    throw std::invalid_argument("decode: beam, max_length and batch_size must be at least 1 (got " +
                                std::to_string(options.beam) + ", " +
                                std::to_string(options.max_length) + ", " +
                                std::to_string(options.batch_size) + ")");
  const int64_t vocab = model.config().tgt_vocab;
  for (const auto& [name, id] : {std::pair<const char*, int64_t>{"pad_id", options.pad_id},
                                 {"bos_id", options.bos_id},
                                 {"eos_id", options.eos_id}})
    if (id < 0 || id >= vocab)
      throw std::invalid_argument(std::string("decode: ") + name + " " + std::to_string(id) +
                                  " is outside the target vocabulary [0, " +
                                  std::to_string(vocab) + ")");
  if (options.eos_id == options.pad_id || options.eos_id == options.bos_id)
    throw std::invalid_argument("decode: eos_id " + std::to_string(options.eos_id) +
                                " is also the pad or bos id");
}

// The sources of one batch, padded and encoded, with a scorer for their next tokens; `observer`
// (optional) gets the encoder's weights now and each step's decoder weights later.
EncoderDecoderScorer encode_batch(nn::Transformer& model,
                                  const std::vector<std::vector<int64_t>>& sources,
                                  const DecodeOptions& options, nn::AttentionObserver* observer) {
  std::vector<int64_t> lengths;
  Tensor source_mask;
  const Tensor memory = encode_sources(model, sources, options.pad_id, lengths, source_mask,
                                       observer);
  return EncoderDecoderScorer(model, memory, source_mask, options.use_cache, options.max_length,
                              memory.size(0) * options.beam, observer);
}

// The search's options: pad and bos never come out of the decoder (pad only fills batches, bos
// only starts the input), so every search chooses among the other tokens.
SearchOptions search_options(const DecodeOptions& options) {
  SearchOptions search = options;
  search.never_output = {options.pad_id, options.bos_id};
  return search;
}

// The sources `indices` of `sources`, decoded together into their places in `outputs`; with
// `maps`, the wanted ones' maps from the same decoding (observed only when one is wanted).
void decode_batch(nn::Transformer& model, const std::vector<std::vector<int64_t>>& sources,
                  const std::vector<size_t>& indices, const DecodeOptions& options,
                  MapsCollection* maps, std::vector<std::vector<int64_t>>& outputs) {
  std::vector<std::vector<int64_t>> batch;
  std::vector<char> wanted;
  for (const size_t i : indices) {
    batch.push_back(sources[i]);
    wanted.push_back(maps && (maps->wanted.empty() || maps->wanted[i]) ? 1 : 0);
  }
  const bool observed = std::find(wanted.begin(), wanted.end(), 1) != wanted.end();
  DecodeOptions in_batch = options;  // on_step names a source by its index in `sources`
  if (options.on_step)
    in_batch.on_step = [&](size_t row, const std::vector<int64_t>& output) {
      options.on_step(indices[row], output);
    };
  nn::AttentionObserver observer;  // every row of the batch
  EncoderDecoderScorer scorer =
      encode_batch(model, batch, in_batch, observed ? &observer : nullptr);
  StepRecord steps(scorer, wanted, observed ? maps->alternatives : 0);
  NextTokenScorer& searched = observed ? static_cast<NextTokenScorer&>(steps) : scorer;
  auto decoded = search(searched, std::vector<std::vector<int64_t>>(batch.size(), {options.bos_id}),
                        search_options(in_batch));
  for (size_t row = 0; row < indices.size(); ++row) {
    if (observed && wanted[row])
      maps->maps[indices[row]] = decoding_maps(
          model, observer, steps, row, std::max<int64_t>(1, batch[row].size()), decoded[row]);
    outputs[indices[row]] = std::move(decoded[row]);
  }
}

}  // namespace

Tensor encode_sources(nn::Transformer& model, const std::vector<std::vector<int64_t>>& sources,
                      int64_t pad_id, std::vector<int64_t>& lengths, Tensor& source_mask,
                      nn::AttentionObserver* observer) {
  const Tensor source = pad_rows(sources, pad_id, lengths);
  source_mask = nn::padding_mask(lengths, source.size(1));
  return model.encode(source, source_mask, observer).value();
}

EncoderDecoderScorer::EncoderDecoderScorer(nn::Transformer& model, const Tensor& memory,
                                           const Tensor& memory_mask, bool use_cache,
                                           int64_t positions, int64_t rows,
                                           nn::AttentionObserver* observer)
    : model_(model),
      memory_(memory),
      memory_mask_(memory_mask),
      use_cache_(use_cache),
      observer_(observer) {
  if (use_cache_)
    cache_ = nn::start_decoding(model_, memory_, memory_mask_,
                                {.positions = positions, .rows = rows});
}

Tensor EncoderDecoderScorer::logits(const std::vector<std::vector<int64_t>>& prefixes) {
  if (!use_cache_) return logits_of_whole_prefixes(prefixes);
  std::vector<int64_t> newest;
  for (const auto& prefix : prefixes) newest.push_back(prefix.back());
  return nn::decode_step(model_, cache_, newest, observer_);
}

void EncoderDecoderScorer::keep_rows(const std::vector<int64_t>& parents) {
  if (use_cache_) return cache_.reorder(parents);
  const Tensor ids = Tensor::from_ids(parents, {static_cast<int64_t>(parents.size())});
  memory_ = index_select(memory_, 0, ids);
  if (memory_mask_.defined()) memory_mask_ = index_select(memory_mask_, 0, ids);
}

// All prefixes have the same length t (bos included).
Tensor EncoderDecoderScorer::logits_of_whole_prefixes(
    const std::vector<std::vector<int64_t>>& prefixes) {
  const int64_t rows = static_cast<int64_t>(prefixes.size());
  const int64_t t = static_cast<int64_t>(prefixes[0].size());
  std::vector<int64_t> ids;
  ids.reserve(rows * t);
  for (const auto& prefix : prefixes) ids.insert(ids.end(), prefix.begin(), prefix.end());
  Variable states =
      model_.decoder->forward(model_.embed_target(Tensor::from_ids(ids, {rows, t})),
                              Variable(memory_), nn::causal_mask(t), memory_mask_, {}, observer_);
  // Only the last position predicts the next token: project just that one.
  Variable last(states.value().narrow(1, t - 1, 1).contiguous());
  return model_.project(last).value().reshape({rows, -1});
}

std::vector<int64_t> beam_search(nn::Transformer& model, const std::vector<int64_t>& source,
                                 const DecodeOptions& options) {
  check_options(model, options);
  nn::EvalScope scope(model);
  EncoderDecoderScorer scorer = encode_batch(model, {source}, options, nullptr);
  return decoding::beam_search(scorer, {{options.bos_id}}, search_options(options))[0];
}

std::vector<std::vector<int64_t>> decode(nn::Transformer& model,
                                         const std::vector<std::vector<int64_t>>& sources,
                                         const DecodeOptions& options, MapsCollection* maps) {
  check_options(model, options);
  if (maps && !maps->wanted.empty() && maps->wanted.size() != sources.size())
    throw std::invalid_argument("decode: maps wanted for " + std::to_string(maps->wanted.size()) +
                                " sources, but " + std::to_string(sources.size()) + " given");
  if (maps) maps->maps.assign(sources.size(), {});
  nn::EvalScope scope(model);
  // Sorted by length, each batch pads little; the outputs go back to the input order.
  std::vector<size_t> order(sources.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sources[a].size() < sources[b].size(); });
  std::vector<std::vector<int64_t>> outputs(sources.size());
  for (size_t start = 0; start < order.size(); start += options.batch_size) {
    const size_t end = std::min(order.size(), start + static_cast<size_t>(options.batch_size));
    decode_batch(model, sources, {order.begin() + start, order.begin() + end}, options, maps,
                 outputs);
  }
  return outputs;
}

}  // namespace atencion::examples::decoding

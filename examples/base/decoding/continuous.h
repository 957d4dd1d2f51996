// examples/base/decoding/continuous.h — greedy decoding with continuous (step-level) batching:
// sources join a running batch between two decoding steps and each leaves as soon as its
// output ends, so a server never waits for a whole batch to finish before taking new work.
// Lesson: docs/17-serving.md#under-load
//
// The rows live in one per-row DecoderCache (nn/decoder_cache.h, start_continuous_decoding):
//   admit(sources)  encodes the newcomers together (encode_sources) and adds a row for each
//                   (admit_rows: their cross-attention keys and values, no position yet);
//   step()          runs ONE decode_step for every row, each at its own position with its own
//                   source, and takes each row's greedy token (detail::best_token, as greedy()
//                   does); a row that chose eos or reached max_length leaves (remove_row).
// Each source's output is the one decode() gives it alone with options.beam 1: the per-row cache
// gives each row the logits of decoding it alone (tests/nn/test_decoder_cache.cpp), and the
// choice is greedy's (tests/examples/base/decoding/test_continuous.cpp).
//
// A source admitted with its maps wanted gets, when it finishes, the DecodingMaps decode() with
// a MapsCollection gives it (decoding_maps.h), read from the same batched forward as every
// row's text: its encoder maps from the encoding it joined with, each step's self- and
// cross-attention of its row (its own keys only) and the step's alternatives. Only the steps
// that hold such a row are observed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <memory>

#include "base/decoding/decoding_maps.h"
#include "base/decoding/encoder_decoder.h"

namespace atencion::examples::decoding {

class ContinuousGreedy {
 public:
  // Room for `max_rows` rows at once; options' max_length (at least 1), eos, pad and bos ids
  // apply to every row (beam and sampling do not: this is greedy). The model is used in eval
  // mode without a graph during each call, as decode() does.
  ContinuousGreedy(nn::Transformer& model, const DecodeOptions& options, int64_t max_rows);

  int64_t rows() const { return static_cast<int64_t>(tags_.size()); }
  int64_t room() const { return max_rows_ - rows(); }

  // Encodes `sources` together and adds one row for each, known by tags[i] from then on; those
  // with maps_wanted[i] != 0 (empty: none) collect their maps, `alternatives` a decoder row.
  // Throws std::invalid_argument when they do not fit room() or tags (or maps_wanted, when
  // given) is not one per source.
  void admit(const std::vector<std::vector<int64_t>>& sources, const std::vector<size_t>& tags,
             const std::vector<char>& maps_wanted = {});
  static constexpr int64_t alternatives = 5;

  // A row's output after a step: its tokens so far (no bos, no eos); `finished` when it chose
  // eos or reached max_length (it has then left).
  struct Output {
    size_t tag;
    std::vector<int64_t> tokens;
    bool finished;
    std::shared_ptr<const DecodingMaps> maps;  // a finished row's maps, when they were wanted
  };
  // One decoding step for every row (none when there is no row): each row's output.
  std::vector<Output> step();

 private:
  struct RowMaps;  // a row's maps so far (continuous.cpp)
  void remove(size_t row);
  nn::AttentionObserver* observe_step(nn::AttentionObserver& observer) const;
  void keep_maps(const nn::AttentionObserver& observer, const Tensor& logits);
  void keep_encoder_maps(const nn::AttentionObserver& observer,
                         const std::vector<std::vector<int64_t>>& sources);

  nn::Transformer& model_;
  DecodeOptions options_;
  int64_t max_rows_;
  nn::DecoderCache cache_;
  std::vector<size_t> tags_;                   // row r decodes the source tagged tags_[r]
  std::vector<std::vector<int64_t>> outputs_;  // and has output outputs_[r] so far
  std::vector<char> allowed_;                  // detail::may_output, made at the first step
  std::vector<double> scores_;                 // each step's log-probabilities, reused
  std::vector<std::shared_ptr<RowMaps>> maps_;  // row r's maps so far, or null (not wanted)
};

}  // namespace atencion::examples::decoding

// examples/base/decoding/continuous.cpp — see continuous.h.
#include "base/decoding/continuous.h"

#include <stdexcept>
#include <string>

#include "nn/eval_scope.h"
#include "tensor/ops.h"

namespace atencion::examples::decoding {

ContinuousGreedy::ContinuousGreedy(nn::Transformer& model, const DecodeOptions& options,
                                   int64_t max_rows)
    : model_(model), options_(options), max_rows_(max_rows) {
  if (max_rows < 1 || options.max_length < 1)
    throw std::invalid_argument("ContinuousGreedy: max_rows " + std::to_string(max_rows) +
                                " and max_length " + std::to_string(options.max_length) +
                                " must be at least 1");
  // Row r has fed at most max_length tokens (bos and all its output but the last).
  cache_ = nn::start_continuous_decoding(
      model, {.positions = options.max_length, .rows = max_rows},
      model.tgt_embedding->weight.dtype());
}

void ContinuousGreedy::admit(const std::vector<std::vector<int64_t>>& sources,
                             const std::vector<size_t>& tags) {
  if (tags.size() != sources.size() || static_cast<int64_t>(sources.size()) > room())
    throw std::invalid_argument("ContinuousGreedy::admit: " + std::to_string(sources.size()) +
                                " sources with " + std::to_string(tags.size()) + " tags, room for " +
                                std::to_string(room()) + ": expected one tag each, within room");
  if (sources.empty()) return;
  nn::EvalScope scope(model_);
  std::vector<int64_t> lengths;
  Tensor source_mask;
  const Tensor memory = encode_sources(model_, sources, options_.pad_id, lengths, source_mask);
  nn::admit_rows(model_, cache_, memory, lengths);
  tags_.insert(tags_.end(), tags.begin(), tags.end());
  outputs_.resize(tags_.size());
}

void ContinuousGreedy::remove(size_t row) {
  cache_.remove_row(static_cast<int64_t>(row));  // the last row moves into `row`, as here
  tags_[row] = tags_.back();
  tags_.pop_back();
  outputs_[row] = std::move(outputs_.back());
  outputs_.pop_back();
}

std::vector<ContinuousGreedy::Output> ContinuousGreedy::step() {
  if (tags_.empty()) return {};
  nn::EvalScope scope(model_);
  std::vector<int64_t> newest;
  for (const auto& output : outputs_) newest.push_back(output.empty() ? options_.bos_id : output.back());
  const Tensor logits = nn::decode_step(model_, cache_, newest);
  detail::read_scores(log_softmax(logits, -1), scores_);
  const int64_t vocab = logits.size(1);
  if (allowed_.empty()) {
    SearchOptions search = options_;
    search.never_output = {options_.pad_id, options_.bos_id};  // as decode()'s searches
    allowed_ = detail::may_output(vocab, search);
  }
  std::vector<Output> outputs;
  for (size_t row = 0; row < tags_.size(); ++row) {
    const int64_t token = detail::best_token(&scores_[row * vocab], vocab, allowed_);
    const bool ended = token == options_.eos_id;
    if (!ended) outputs_[row].push_back(token);
    const bool finished =
        ended || static_cast<int64_t>(outputs_[row].size()) >= options_.max_length;
    outputs.push_back({tags_[row], outputs_[row], finished});
  }
  for (size_t row = tags_.size(); row-- > 0;)  // from the last: a moved row was already read
    if (outputs[row].finished) remove(row);
  return outputs;
}

}  // namespace atencion::examples::decoding

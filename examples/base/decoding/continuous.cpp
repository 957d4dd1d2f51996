// examples/base/decoding/continuous.cpp — see continuous.h.
#include "base/decoding/continuous.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "nn/eval_scope.h"
#include "tensor/ops.h"
#include "tensor/threads.h"

namespace atencion::examples::decoding {

// A row's maps so far: its encoder maps, and for each step it was fed, the newest query's weights
// over its own keys [heads, 1, keys] in each decoder layer and the step's alternatives.
struct ContinuousGreedy::RowMaps {
  int64_t source_length = 1;
  std::vector<Tensor> encoder_self;                      // per encoder layer, [heads, S, S]
  std::vector<std::vector<Tensor>> decoder_self, cross;  // per decoder layer, per step
  std::vector<std::vector<Likely>> likeliest;            // per step

  // The steps as decoding_maps() lays them out: decoder row k is step k, zero past its keys.
  DecodingMaps finish() const {
    const auto t = static_cast<int64_t>(likeliest.size());
    const auto rows = [t](const std::vector<Tensor>& steps, int64_t keys) {
      Tensor result = Tensor::zeros({steps.at(0).size(0), t, keys}, steps.at(0).dtype());
      for (int64_t k = 0; k < t; ++k) {
        const Tensor& step = steps[static_cast<size_t>(k)];
        result.narrow(1, k, 1).narrow(2, 0, step.size(2)).copy_(step);
      }
      return result;
    };
    DecodingMaps maps{encoder_self, {}, {}, likeliest};
    for (const auto& steps : decoder_self) maps.decoder_self.push_back(rows(steps, t));
    for (const auto& steps : cross) maps.cross.push_back(rows(steps, source_length));
    return maps;
  }
};

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
                             const std::vector<size_t>& tags,
                             const std::vector<char>& maps_wanted) {
  if (tags.size() != sources.size() || static_cast<int64_t>(sources.size()) > room() ||
      (!maps_wanted.empty() && maps_wanted.size() != sources.size()))
    throw std::invalid_argument("ContinuousGreedy::admit: " + std::to_string(sources.size()) +
                                " sources with " + std::to_string(tags.size()) + " tags and " +
                                std::to_string(maps_wanted.size()) + " maps wanted, room for " +
                                std::to_string(room()) + ": expected one each, within room");
  if (sources.empty()) return;
  nn::EvalScope scope(model_);
  std::vector<int64_t> observed, lengths;
  for (size_t i = 0; i < maps_wanted.size(); ++i)
    if (maps_wanted[i]) observed.push_back(static_cast<int64_t>(i));
  nn::AttentionObserver observer(observed);
  Tensor source_mask;
  const Tensor memory = encode_sources(model_, sources, options_.pad_id, lengths, source_mask,
                                       observed.empty() ? nullptr : &observer);
  nn::admit_rows(model_, cache_, memory, lengths);
  maps_.resize(tags_.size() + sources.size());
  if (!observed.empty()) keep_encoder_maps(observer, sources);
  tags_.insert(tags_.end(), tags.begin(), tags.end());
  outputs_.resize(tags_.size());
}

// The newcomers' encoder maps (observer: the wanted ones among `sources`, rows after tags_'s),
// cut to each source's length as decoding_maps() cuts them.
void ContinuousGreedy::keep_encoder_maps(const nn::AttentionObserver& observer,
                                         const std::vector<std::vector<int64_t>>& sources) {
  for (size_t j = 0; j < observer.rows().size(); ++j) {
    const auto i = static_cast<size_t>(observer.rows()[j]);
    auto maps = std::make_shared<RowMaps>();
    maps->source_length = std::max<int64_t>(1, static_cast<int64_t>(sources[i].size()));
    for (const auto& layer : model_.encoder->layers)
      maps->encoder_self.push_back(observer.weights(*layer->self_attn->attention)
                                       .select(0, static_cast<int64_t>(j))
                                       .narrow(1, 0, maps->source_length)
                                       .narrow(2, 0, maps->source_length)
                                       .contiguous());
    maps->decoder_self.resize(model_.decoder->layers.size());
    maps->cross.resize(model_.decoder->layers.size());
    maps_[tags_.size() + i] = std::move(maps);
  }
}

// An observer of this step's rows whose maps are wanted, or null when none is.
nn::AttentionObserver* ContinuousGreedy::observe_step(nn::AttentionObserver& observer) const {
  std::vector<int64_t> rows;
  for (size_t r = 0; r < maps_.size(); ++r)
    if (maps_[r]) rows.push_back(static_cast<int64_t>(r));
  if (rows.empty()) return nullptr;
  observer = nn::AttentionObserver(rows);
  return &observer;
}

// This step's maps of the observed rows: each decoder attention's newest query over the row's
// own keys (its positions so far, its source), and the alternatives (softmax of the logits).
void ContinuousGreedy::keep_maps(const nn::AttentionObserver& observer, const Tensor& logits) {
  std::vector<double> probabilities;
  detail::read_scores(softmax(logits, -1), probabilities);
  const int64_t vocab = logits.size(1);
  const auto& layers = model_.decoder->layers;
  for (size_t j = 0; j < observer.rows().size(); ++j) {
    const auto row = static_cast<size_t>(observer.rows()[j]);
    RowMaps& maps = *maps_[row];
    const auto keys = static_cast<int64_t>(maps.likeliest.size()) + 1;  // bos and its outputs
    for (size_t l = 0; l < layers.size(); ++l) {
      const auto newest = [&](const nn::Module& attention, int64_t count) {
        return observer.calls(attention).at(0).select(0, static_cast<int64_t>(j))
            .narrow(2, 0, count).contiguous();
      };
      maps.decoder_self[l].push_back(newest(*layers[l]->self_attn->attention, keys));
      maps.cross[l].push_back(newest(*layers[l]->cross_attn->attention, maps.source_length));
    }
    maps.likeliest.push_back(likeliest_of(probabilities.data() + row * static_cast<size_t>(vocab),
                                          vocab, static_cast<size_t>(std::min(alternatives, vocab))));
  }
}

void ContinuousGreedy::remove(size_t row) {
  cache_.remove_row(static_cast<int64_t>(row));  // the last row moves into `row`, as here
  tags_[row] = tags_.back();
  tags_.pop_back();
  outputs_[row] = std::move(outputs_.back());
  outputs_.pop_back();
  maps_[row] = std::move(maps_.back());
  maps_.pop_back();
}

std::vector<ContinuousGreedy::Output> ContinuousGreedy::step() {
  if (tags_.empty()) return {};
  nn::EvalScope scope(model_);
  std::vector<int64_t> newest;
  for (const auto& output : outputs_) newest.push_back(output.empty() ? options_.bos_id : output.back());
  nn::AttentionObserver observer;
  nn::AttentionObserver* observed = observe_step(observer);
  const Tensor logits = nn::decode_step(model_, cache_, newest, observed);
  if (observed) keep_maps(observer, logits);
  detail::read_scores(log_softmax(logits, -1), scores_);
  const int64_t vocab = logits.size(1);
  if (allowed_.empty()) {
    SearchOptions search = options_;
    search.never_output = {options_.pad_id, options_.bos_id};  // as decode()'s searches
    allowed_ = detail::may_output(vocab, search);
  }
  // Each row's greedy token, the rows shared among the threads (each row's choice its own).
  std::vector<int64_t> tokens(tags_.size());
  parallel_for(rows(), vocab, [&](int64_t row) {
    tokens[row] = detail::best_token(&scores_[row * vocab], vocab, allowed_);
  });
  std::vector<Output> outputs;
  for (size_t row = 0; row < tags_.size(); ++row) {
    const int64_t token = tokens[row];
    const bool ended = token == options_.eos_id;
    if (!ended) outputs_[row].push_back(token);
    const bool finished =
        ended || static_cast<int64_t>(outputs_[row].size()) >= options_.max_length;
    outputs.push_back({tags_[row], outputs_[row], finished,
                       finished && maps_[row] ? std::make_shared<const DecodingMaps>(
                                                    maps_[row]->finish())
                                              : nullptr});
  }
  for (size_t row = tags_.size(); row-- > 0;)  // from the last: a moved row was already read
    if (outputs[row].finished) remove(row);
  return outputs;
}

}  // namespace atencion::examples::decoding

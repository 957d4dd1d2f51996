// nn/decoding.cpp — greedy and beam search; see decoding.h for the formulas.
#include "nn/decoding.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "nn/masks.h"

namespace atencion::nn {
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

// pad and bos never come out of the decoder: pad only fills batches and bos only starts the
// input. Both searches choose among the other tokens.
bool may_output(int64_t token, const DecodeOptions& options) {
  return token != options.pad_id && token != options.bos_id;
}

// log p(next token | source, prefix) for each prefix: [prefixes, target vocab].
// All prefixes have the same length t (bos included); memory has one row per prefix.
Tensor next_log_probs(Transformer& model, const Variable& memory, const Tensor& memory_mask,
                      const std::vector<std::vector<int64_t>>& prefixes) {
  const int64_t rows = static_cast<int64_t>(prefixes.size());
  const int64_t t = static_cast<int64_t>(prefixes[0].size());
  std::vector<int64_t> ids;
  ids.reserve(rows * t);
  for (const auto& prefix : prefixes) ids.insert(ids.end(), prefix.begin(), prefix.end());
  Variable states = model.decoder->forward(model.embed_target(Tensor::from_ids(ids, {rows, t})),
                                           memory, causal_mask(t), memory_mask);
  // Only the last position predicts the next token: project just that one.
  Variable last(states.value().narrow(1, t - 1, 1).contiguous());
  return log_softmax(model.project(last).value().reshape({rows, -1}), -1);
}

std::vector<std::vector<int64_t>> greedy(Transformer& model,
                                         const std::vector<std::vector<int64_t>>& sources,
                                         const DecodeOptions& options) {
  std::vector<int64_t> lengths;
  const Tensor source = pad_rows(sources, options.pad_id, lengths);
  const Tensor source_mask = padding_mask(lengths, source.size(1));
  const Variable memory = model.encode(source, source_mask);

  const size_t rows = sources.size();
  std::vector<std::vector<int64_t>> prefixes(rows, {options.bos_id});
  std::vector<bool> finished(rows, false);
  for (int64_t step = 0; step < options.max_length; ++step) {
    const std::vector<double> log_probs =
        next_log_probs(model, memory, source_mask, prefixes).to_vector();
    const int64_t vocab = static_cast<int64_t>(log_probs.size() / rows);
    bool all_finished = true;
    for (size_t r = 0; r < rows; ++r) {
      // y_t = argmax over the tokens an output may hold (the first one on ties, as torch).
      int64_t best = -1;
      for (int64_t v = 0; v < vocab; ++v)
        if (may_output(v, options) &&
            (best < 0 || log_probs[r * vocab + v] > log_probs[r * vocab + best]))
          best = v;
      // A finished row goes on with pads, so the batch stays a rectangle; they are cut below.
      const int64_t token = finished[r] ? options.pad_id : best;
      prefixes[r].push_back(token);
      finished[r] = finished[r] || token == options.eos_id;
      all_finished = all_finished && finished[r];
    }
    if (all_finished) break;
  }
  std::vector<std::vector<int64_t>> outputs(rows);
  for (size_t r = 0; r < rows; ++r)
    for (size_t i = 1; i < prefixes[r].size(); ++i) {
      if (prefixes[r][i] == options.eos_id || prefixes[r][i] == options.pad_id) break;
      outputs[r].push_back(prefixes[r][i]);
    }
  return outputs;
}

std::vector<int64_t> search_beams(Transformer& model, const std::vector<int64_t>& source_ids,
                                  const DecodeOptions& options) {
  std::vector<int64_t> lengths;
  const Tensor source = pad_rows({source_ids}, options.pad_id, lengths);
  const Tensor source_mask = padding_mask(lengths, source.size(1));
  const Tensor memory_of_source = model.encode(source, source_mask).value();

  struct Hypothesis {
    std::vector<int64_t> prefix;  // bos y1 .. yt
    double log_prob = 0;
  };
  auto score = [&](const Hypothesis& h) {  // log p / lp(n), n = tokens after bos
    const double n = static_cast<double>(h.prefix.size() - 1);
    return h.log_prob / std::pow((5.0 + n) / 6.0, options.length_penalty);
  };
  std::vector<Hypothesis> beams{{{options.bos_id}, 0.0}}, finished;
  for (int64_t step = 0; step < options.max_length && !beams.empty(); ++step) {
    const int64_t alive = static_cast<int64_t>(beams.size());
    const Variable memory(
        memory_of_source.expand({alive, memory_of_source.size(1), memory_of_source.size(2)})
            .contiguous());
    std::vector<std::vector<int64_t>> prefixes;
    for (const auto& beam : beams) prefixes.push_back(beam.prefix);
    const std::vector<double> log_probs =
        next_log_probs(model, memory, source_mask, prefixes).to_vector();
    const int64_t vocab = static_cast<int64_t>(log_probs.size()) / alive;

    // The `beam` best of the alive × vocab one-token extensions.
    std::vector<std::pair<double, int64_t>> candidates;  // (total log p, row · vocab + token)
    candidates.reserve(log_probs.size());
    for (int64_t b = 0; b < alive; ++b)
      for (int64_t v = 0; v < vocab; ++v)
        if (may_output(v, options))
          candidates.emplace_back(beams[b].log_prob + log_probs[b * vocab + v], b * vocab + v);
    const int64_t keep = std::min<int64_t>(options.beam, static_cast<int64_t>(candidates.size()));
    std::partial_sort(candidates.begin(), candidates.begin() + keep, candidates.end(),
                      [](const auto& x, const auto& y) { return x.first > y.first; });
    std::vector<Hypothesis> next;
    for (int64_t c = 0; c < keep; ++c) {
      const int64_t b = candidates[c].second / vocab, token = candidates[c].second % vocab;
      Hypothesis extended{beams[b].prefix, candidates[c].first};
      extended.prefix.push_back(token);
      (token == options.eos_id ? finished : next).push_back(std::move(extended));
    }
    beams = std::move(next);
    if (static_cast<int64_t>(finished.size()) >= options.beam) break;
  }
  for (auto& beam : beams) finished.push_back(std::move(beam));  // reached max_length
  const auto best = std::max_element(finished.begin(), finished.end(),
                                     [&](const auto& x, const auto& y) {
                                       return score(x) < score(y);
                                     });
  std::vector<int64_t> output;
  for (size_t i = 1; i < best->prefix.size() && best->prefix[i] != options.eos_id; ++i)
    output.push_back(best->prefix[i]);
  return output;
}

}  // namespace

namespace {

void check_options(const Transformer& model, const DecodeOptions& options) {
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

// Decoding runs in eval mode without recording a graph; the model's mode is given back after.
class EvalScope {
 public:
  explicit EvalScope(Transformer& model) : model_(model), was_training_(model.is_training()) {
    model_.eval();
  }
  ~EvalScope() { model_.train(was_training_); }
  EvalScope(const EvalScope&) = delete;
  EvalScope& operator=(const EvalScope&) = delete;

 private:
  Transformer& model_;
  bool was_training_;
  NoGradGuard no_grad_;
};

}  // namespace

std::vector<int64_t> beam_search(Transformer& model, const std::vector<int64_t>& source,
                                 const DecodeOptions& options) {
  check_options(model, options);
  EvalScope scope(model);
  return search_beams(model, source, options);
}

std::vector<std::vector<int64_t>> decode(Transformer& model,
                                         const std::vector<std::vector<int64_t>>& sources,
                                         const DecodeOptions& options) {
  check_options(model, options);
  EvalScope scope(model);
  std::vector<std::vector<int64_t>> outputs;
  if (options.beam > 1) {
    for (const auto& source : sources) outputs.push_back(search_beams(model, source, options));
    return outputs;
  }
  // Sorted by length, each batch pads little; the outputs go back to the input order.
  std::vector<size_t> order(sources.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sources[a].size() < sources[b].size(); });
  outputs.resize(sources.size());
  for (size_t start = 0; start < order.size(); start += options.batch_size) {
    const size_t end = std::min(order.size(), start + static_cast<size_t>(options.batch_size));
    std::vector<std::vector<int64_t>> batch;
    for (size_t i = start; i < end; ++i) batch.push_back(sources[order[i]]);
    auto decoded = greedy(model, batch, options);
    for (size_t i = start; i < end; ++i) outputs[order[i]] = std::move(decoded[i - start]);
  }
  return outputs;
}

}  // namespace atencion::nn

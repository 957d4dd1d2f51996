// nn/decoding.cpp — greedy and beam search; see decoding.h for the formulas.
#include "nn/decoding.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "nn/decoder_cache.h"
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

// log p(next token | source, prefix) for each row's prefix, [rows, target vocab], two ways that
// give the same numbers (tests/nn/test_decoder_cache.cpp):
//   without the cache (the readable reference): the whole prefix through the decoder each step;
//   with it (nn/decoder_cache.h): only each prefix's newest token, through decode_step.
// Row r of the memory belongs to prefix r. Between two calls every prefix grows by one token,
// and keep_rows tells which rows go on (beam search reorders them, finished rows leave).
class NextTokenScorer {
 public:
  // The cache holds every step of the search (one token each, max_length of them) and, for
  // beam search, `beam` hypotheses of each source.
  NextTokenScorer(Transformer& model, const Tensor& memory, const Tensor& memory_mask,
                  const DecodeOptions& options)
      : model_(model), memory_(memory), memory_mask_(memory_mask), use_cache_(options.use_cache) {
    if (use_cache_)
      cache_ = start_decoding(model_, memory_, memory_mask_,
                              {.positions = options.max_length,
                               .rows = memory.size(0) * options.beam});
  }

  Tensor log_probs(const std::vector<std::vector<int64_t>>& prefixes) {
    if (use_cache_) {
      std::vector<int64_t> newest;
      for (const auto& prefix : prefixes) newest.push_back(prefix.back());
      return log_softmax(decode_step(model_, cache_, newest), -1);
    }
    return log_probs_of_whole_prefixes(prefixes);
  }

  // Row i of the next call is row parents[i] of this one.
  void keep_rows(const std::vector<int64_t>& parents) {
    if (use_cache_) return cache_.reorder(parents);
    const Tensor ids = Tensor::from_ids(parents, {static_cast<int64_t>(parents.size())});
    memory_ = index_select(memory_, 0, ids);
    if (memory_mask_.defined()) memory_mask_ = index_select(memory_mask_, 0, ids);
  }

 private:
  // All prefixes have the same length t (bos included).
  Tensor log_probs_of_whole_prefixes(const std::vector<std::vector<int64_t>>& prefixes) {
    const int64_t rows = static_cast<int64_t>(prefixes.size());
    const int64_t t = static_cast<int64_t>(prefixes[0].size());
    std::vector<int64_t> ids;
    ids.reserve(rows * t);
    for (const auto& prefix : prefixes) ids.insert(ids.end(), prefix.begin(), prefix.end());
    Variable states =
        model_.decoder->forward(model_.embed_target(Tensor::from_ids(ids, {rows, t})),
                                Variable(memory_), causal_mask(t), memory_mask_);
    // Only the last position predicts the next token: project just that one.
    Variable last(states.value().narrow(1, t - 1, 1).contiguous());
    return log_softmax(model_.project(last).value().reshape({rows, -1}), -1);
  }

  Transformer& model_;
  Tensor memory_, memory_mask_;
  bool use_cache_;
  DecoderCache cache_;
};

// The [rows, vocab] log-probabilities as doubles in `out`, which is reused from step to step: a
// step then neither allocates a fresh buffer of rows · vocab doubles nor converts through the
// strided loops of to_vector.
void read_log_probs(const Tensor& log_probs, std::vector<double>& out) {
  const Tensor rows = log_probs.contiguous();
  if (rows.dtype() != DType::Float32) {
    out = rows.to_vector();
    return;
  }
  out.resize(rows.numel());
  std::copy_n(rows.data<float>(), out.size(), out.begin());
}

// The sources of one batch, padded and encoded, with a scorer for their next tokens.
NextTokenScorer encode_batch(Transformer& model, const std::vector<std::vector<int64_t>>& sources,
                             const DecodeOptions& options) {
  std::vector<int64_t> lengths;
  const Tensor source = pad_rows(sources, options.pad_id, lengths);
  const Tensor source_mask = padding_mask(lengths, source.size(1));
  const Tensor memory = model.encode(source, source_mask).value();
  return NextTokenScorer(model, memory, source_mask, options);
}

std::vector<std::vector<int64_t>> greedy(Transformer& model,
                                         const std::vector<std::vector<int64_t>>& sources,
                                         const DecodeOptions& options) {
  NextTokenScorer scorer = encode_batch(model, sources, options);
  // Row r decodes source active[r]; a row leaves the batch when its source has output eos.
  std::vector<size_t> active(sources.size());
  std::iota(active.begin(), active.end(), 0);
  std::vector<std::vector<int64_t>> prefixes(sources.size(), {options.bos_id});
  std::vector<std::vector<int64_t>> outputs(sources.size());
  std::vector<double> log_probs;
  for (int64_t step = 0; step < options.max_length && !active.empty(); ++step) {
    read_log_probs(scorer.log_probs(prefixes), log_probs);
    const int64_t vocab = static_cast<int64_t>(log_probs.size() / active.size());
    std::vector<size_t> still_active;
    std::vector<std::vector<int64_t>> next_prefixes;
    std::vector<int64_t> parents;
    for (size_t r = 0; r < active.size(); ++r) {
      // y_t = argmax over the tokens an output may hold (the first one on ties, as torch).
      int64_t best = -1;
      for (int64_t v = 0; v < vocab; ++v)
        if (may_output(v, options) &&
            (best < 0 || log_probs[r * vocab + v] > log_probs[r * vocab + best]))
          best = v;
      if (best == options.eos_id) {
        outputs[active[r]].assign(prefixes[r].begin() + 1, prefixes[r].end());
        continue;
      }
      prefixes[r].push_back(best);
      still_active.push_back(active[r]);
      next_prefixes.push_back(std::move(prefixes[r]));
      parents.push_back(static_cast<int64_t>(r));
    }
    if (still_active.size() < active.size() && !still_active.empty()) scorer.keep_rows(parents);
    active = std::move(still_active);
    prefixes = std::move(next_prefixes);
    if (options.on_step)
      for (size_t r = 0; r < active.size(); ++r)
        options.on_step(active[r], {prefixes[r].begin() + 1, prefixes[r].end()});
  }
  for (size_t r = 0; r < active.size(); ++r)  // reached max_length without eos
    outputs[active[r]].assign(prefixes[r].begin() + 1, prefixes[r].end());
  return outputs;
}

// (total log p, row · vocab + token), best first: higher log p, then the smaller index on ties,
// so that the choice never depends on how the candidates were gathered.
using Candidate = std::pair<double, int64_t>;
bool better(const Candidate& x, const Candidate& y) {
  return x.first > y.first || (x.first == y.first && x.second < y.second);
}

// The `keep` best candidates of one hypothesis's row, best first, into `out`. The `keep` best
// of all rows are among the rows' own `keep` best, so beam search looks at rows · keep
// candidates instead of rows · vocab.
void best_of_row(const double* log_probs, int64_t vocab, double prefix_log_prob, int64_t row,
                 int64_t keep, const DecodeOptions& options, std::vector<Candidate>& out) {
  std::vector<Candidate> best;
  for (int64_t v = 0; v < vocab; ++v) {
    if (!may_output(v, options)) continue;
    const Candidate candidate{prefix_log_prob + log_probs[v], row * vocab + v};
    if (static_cast<int64_t>(best.size()) == keep && !better(candidate, best.back())) continue;
    if (static_cast<int64_t>(best.size()) == keep) best.pop_back();
    best.insert(std::upper_bound(best.begin(), best.end(), candidate, better), candidate);
  }
  out.insert(out.end(), best.begin(), best.end());
}

struct Hypothesis {
  std::vector<int64_t> prefix;  // bos y1 .. yt
  double log_prob = 0;
};

// One source's search: its alive hypotheses and those that ended in eos.
struct BeamSearch {
  std::vector<Hypothesis> beams, finished;
  bool done = false;
};

// One step of one source's search: its alive hypotheses' rows of log-probabilities (`rows`,
// each `vocab` wide, the first at batch row `first_row`) give alive × vocab one-token
// extensions; the `beam` best go on, those ending in eos as finished. The batch rows the
// survivors extend are appended to `parents`, unless the search is now done.
void extend_beams(BeamSearch& search, const double* rows, int64_t vocab, int64_t first_row,
                  const DecodeOptions& options, std::vector<int64_t>& parents) {
  const int64_t alive = static_cast<int64_t>(search.beams.size());
  std::vector<Candidate> candidates;
  for (int64_t b = 0; b < alive; ++b)
    best_of_row(rows + b * vocab, vocab, search.beams[b].log_prob, b, options.beam, options,
                candidates);
  const int64_t keep = std::min<int64_t>(options.beam, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + keep, candidates.end(), better);
  std::vector<Hypothesis> next;
  std::vector<int64_t> next_parents;
  for (int64_t c = 0; c < keep; ++c) {
    const int64_t b = candidates[c].second / vocab, token = candidates[c].second % vocab;
    Hypothesis extended{search.beams[b].prefix, candidates[c].first};
    extended.prefix.push_back(token);
    if (token == options.eos_id) {
      search.finished.push_back(std::move(extended));
    } else {
      next.push_back(std::move(extended));
      next_parents.push_back(first_row + b);
    }
  }
  search.beams = std::move(next);
  search.done =
      search.beams.empty() || static_cast<int64_t>(search.finished.size()) >= options.beam;
  if (!search.done) parents.insert(parents.end(), next_parents.begin(), next_parents.end());
}

// The best of a search's finished hypotheses and those still alive, by log p / lp(n), n =
// tokens after bos, without bos and eos: its answer once it stops (at max_length, or when enough
// had finished), and its best guess so far before.
std::vector<int64_t> best_output(const BeamSearch& search, const DecodeOptions& options) {
  auto score = [&](const Hypothesis& h) {
    const double n = static_cast<double>(h.prefix.size() - 1);
    return h.log_prob / std::pow((5.0 + n) / 6.0, options.length_penalty);
  };
  const Hypothesis* best = nullptr;
  for (const auto* hypotheses : {&search.finished, &search.beams})
    for (const Hypothesis& h : *hypotheses)
      if (best == nullptr || score(*best) < score(h)) best = &h;
  std::vector<int64_t> output;
  for (size_t i = 1; i < best->prefix.size() && best->prefix[i] != options.eos_id; ++i)
    output.push_back(best->prefix[i]);
  return output;
}

std::vector<std::vector<int64_t>> search_beams(Transformer& model,
                                               const std::vector<std::vector<int64_t>>& sources,
                                               const DecodeOptions& options) {
  NextTokenScorer scorer = encode_batch(model, sources, options);
  // The rows of the batch are the alive hypotheses of the sources not done, source by source.
  std::vector<BeamSearch> searches(sources.size());
  for (auto& search : searches) search.beams = {{{options.bos_id}, 0.0}};
  std::vector<double> log_probs;
  for (int64_t step = 0; step < options.max_length; ++step) {
    std::vector<std::vector<int64_t>> prefixes;
    for (const auto& search : searches)
      if (!search.done)
        for (const auto& beam : search.beams) prefixes.push_back(beam.prefix);
    if (prefixes.empty()) break;
    read_log_probs(scorer.log_probs(prefixes), log_probs);
    const int64_t vocab = static_cast<int64_t>(log_probs.size() / prefixes.size());

    std::vector<int64_t> parents;  // the row each hypothesis of the next step extends
    int64_t first_row = 0;         // the current source's first row
    for (auto& search : searches) {
      if (search.done) continue;
      const int64_t alive = static_cast<int64_t>(search.beams.size());
      extend_beams(search, &log_probs[first_row * vocab], vocab, first_row, options, parents);
      first_row += alive;
    }
    if (!parents.empty()) scorer.keep_rows(parents);
    if (options.on_step)
      for (size_t i = 0; i < searches.size(); ++i)
        if (!searches[i].done) options.on_step(i, best_output(searches[i], options));
  }
  std::vector<std::vector<int64_t>> outputs;
  for (auto& search : searches) outputs.push_back(best_output(search, options));
  return outputs;
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
  return search_beams(model, {source}, options)[0];
}

std::vector<std::vector<int64_t>> decode(Transformer& model,
                                         const std::vector<std::vector<int64_t>>& sources,
                                         const DecodeOptions& options) {
  check_options(model, options);
  EvalScope scope(model);
  // Sorted by length, each batch pads little; the outputs go back to the input order.
  std::vector<size_t> order(sources.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sources[a].size() < sources[b].size(); });
  std::vector<std::vector<int64_t>> outputs(sources.size());
  for (size_t start = 0; start < order.size(); start += options.batch_size) {
    const size_t end = std::min(order.size(), start + static_cast<size_t>(options.batch_size));
    std::vector<std::vector<int64_t>> batch;
    for (size_t i = start; i < end; ++i) batch.push_back(sources[order[i]]);
    DecodeOptions in_batch = options;  // on_step names a source by its index in `sources`
    if (options.on_step)
      in_batch.on_step = [&](size_t row, const std::vector<int64_t>& output) {
        options.on_step(order[start + row], output);
      };
    auto decoded = options.beam > 1 ? search_beams(model, batch, in_batch)
                                    : greedy(model, batch, in_batch);
    for (size_t i = start; i < end; ++i) outputs[order[i]] = std::move(decoded[i - start]);
  }
  return outputs;
}

}  // namespace atencion::nn

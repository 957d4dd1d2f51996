// examples/base/decoding/search.cpp — greedy and sampling (one token a row per step), and the
// choice between them and beam search (beam_search.cpp); see search.h for the formulas.
#include "base/decoding/search.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "tensor/ops.h"

namespace atencion::examples::decoding {
namespace detail {

void read_scores(const Tensor& scores, std::vector<double>& out) {
  const Tensor rows = scores.contiguous();
  if (rows.dtype() != DType::Float32) {
    out = rows.to_vector();
    return;
  }
  out.resize(rows.numel());
  std::copy_n(rows.data<float>(), out.size(), out.begin());
}

std::vector<char> may_output(int64_t vocab, const SearchOptions& options) {
  std::vector<char> allowed(static_cast<size_t>(vocab), 1);
  for (const int64_t token : options.never_output)
    if (token >= 0 && token < vocab) allowed[static_cast<size_t>(token)] = 0;
  return allowed;
}

int64_t best_token(const double* log_probs, int64_t vocab, const std::vector<char>& allowed) {
  int64_t best = -1;
  for (int64_t v = 0; v < vocab; ++v)
    if (allowed[v] && (best < 0 || log_probs[v] > log_probs[best])) best = v;
  return best;
}

}  // namespace detail

namespace {

// Row `start`'s next token from its `vocab` scores.
using ChooseToken = std::function<int64_t(size_t start, const double* scores, int64_t vocab)>;

// Greedy and sampling: each row adds one token a step, chosen by `choose` from its
// log-probabilities (`log_probs`) or its logits, and leaves the batch when it chooses eos.
std::vector<std::vector<int64_t>> token_by_token(NextTokenScorer& scorer,
                                                 const std::vector<std::vector<int64_t>>& starts,
                                                 const SearchOptions& options, bool log_probs,
                                                 const ChooseToken& choose) {
  // Row r continues start active[r].
  std::vector<size_t> active(starts.size());
  std::iota(active.begin(), active.end(), 0);
  std::vector<std::vector<int64_t>> prefixes = starts, outputs(starts.size());
  auto output_of = [&](size_t r) {
    return std::vector<int64_t>(prefixes[r].begin() + starts[active[r]].size(), prefixes[r].end());
  };
  std::vector<double> scores;
  for (int64_t step = 0; step < options.max_length && !active.empty(); ++step) {
    const Tensor logits = scorer.logits(prefixes);
    detail::read_scores(log_probs ? log_softmax(logits, -1) : logits, scores);
    const int64_t vocab = static_cast<int64_t>(scores.size() / active.size());
    std::vector<size_t> still_active;
    std::vector<std::vector<int64_t>> next_prefixes;
    std::vector<int64_t> parents;
    for (size_t r = 0; r < active.size(); ++r) {
      const int64_t token = choose(active[r], &scores[r * vocab], vocab);
      if (token == options.eos_id) {
        outputs[active[r]] = output_of(r);
        continue;
      }
      prefixes[r].push_back(token);
      still_active.push_back(active[r]);
      next_prefixes.push_back(std::move(prefixes[r]));
      parents.push_back(static_cast<int64_t>(r));
    }
    if (still_active.size() < active.size() && !still_active.empty()) scorer.keep_rows(parents);
    active = std::move(still_active);
    prefixes = std::move(next_prefixes);
    if (options.on_step)
      for (size_t r = 0; r < active.size(); ++r) options.on_step(active[r], output_of(r));
  }
  for (size_t r = 0; r < active.size(); ++r) outputs[active[r]] = output_of(r);  // max_length
  return outputs;
}

}  // namespace

std::vector<std::vector<int64_t>> greedy(NextTokenScorer& scorer,
                                         const std::vector<std::vector<int64_t>>& starts,
                                         const SearchOptions& options) {
  std::vector<char> allowed;
  auto argmax = [&](size_t, const double* log_probs, int64_t vocab) {
    if (allowed.empty()) allowed = detail::may_output(vocab, options);
    // y_t = argmax over the tokens an output may hold.
    return detail::best_token(log_probs, vocab, allowed);
  };
  return token_by_token(scorer, starts, options, true, argmax);
}

std::vector<std::vector<int64_t>> sample(NextTokenScorer& scorer,
                                         const std::vector<std::vector<int64_t>>& starts,
                                         const SearchOptions& options) {
  std::vector<SplitMix64> generators(starts.size(), SplitMix64(options.sampling.seed));
  std::vector<char> allowed;
  std::vector<double> row;
  auto draw_one = [&](size_t start, const double* logits, int64_t vocab) {
    if (allowed.empty()) allowed = detail::may_output(vocab, options);
    row.assign(logits, logits + vocab);
    for (int64_t v = 0; v < vocab; ++v)  // softmax gives exp(-inf) = 0: never drawn
      if (!allowed[v]) row[v] = -std::numeric_limits<double>::infinity();
    return next_token(row, options.sampling, generators[start]);
  };
  return token_by_token(scorer, starts, options, false, draw_one);
}

std::vector<std::vector<int64_t>> search(NextTokenScorer& scorer,
                                         const std::vector<std::vector<int64_t>>& starts,
                                         const SearchOptions& options) {
  if (options.beam < 1 || options.max_length < 0)
    throw std::invalid_argument("search: beam must be at least 1 and max_length at least 0 (got " +
                                std::to_string(options.beam) + ", " +
                                std::to_string(options.max_length) + ")");
  for (const auto& start : starts)
    if (start.size() != starts[0].size())
      throw std::invalid_argument("search: the starts have different lengths (" +
                                  std::to_string(starts[0].size()) + " and " +
                                  std::to_string(start.size()) + ")");
  if (options.sample && options.beam > 1)
    throw std::invalid_argument("search: sampling draws one token a row, not a beam of " +
                                std::to_string(options.beam));
  if (options.sample) return sample(scorer, starts, options);
  return options.beam > 1 ? beam_search(scorer, starts, options) : greedy(scorer, starts, options);
}

}  // namespace atencion::examples::decoding

// examples/base/decoding/beam_search.cpp — beam search over a NextTokenScorer; see search.h for
// the formulas.
#include <algorithm>
#include <cmath>
#include <utility>

#include "base/decoding/search.h"
#include "tensor/ops.h"

namespace atencion::examples::decoding {
namespace {

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
                 int64_t keep, const std::vector<char>& allowed, std::vector<Candidate>& out) {
  std::vector<Candidate> best;
  for (int64_t v = 0; v < vocab; ++v) {
    if (!allowed[v]) continue;
    const Candidate candidate{prefix_log_prob + log_probs[v], row * vocab + v};
    if (static_cast<int64_t>(best.size()) == keep && !better(candidate, best.back())) continue;
    if (static_cast<int64_t>(best.size()) == keep) best.pop_back();
    best.insert(std::upper_bound(best.begin(), best.end(), candidate, better), candidate);
  }
  out.insert(out.end(), best.begin(), best.end());
}

struct Hypothesis {
  std::vector<int64_t> prefix;  // start y1 .. yt
  double log_prob = 0;
};

// One start's search: its alive hypotheses and those that ended in eos.
struct BeamSearch {
  size_t start_length = 0;
  std::vector<Hypothesis> beams, finished;
  bool done = false;
};

// One step of one start's search: its alive hypotheses' rows of log-probabilities (`rows`,
// each `vocab` wide, the first at batch row `first_row`) give alive × vocab one-token
// extensions, ranked best first. Of the `beam` best, those ending in eos are finished; the
// others go on, and the next best (up to rank 2 · beam) fill the places the finished ones left,
// so that `beam` hypotheses stay alive (as fairseq's and Hugging Face's beam searches do). An
// eos candidate ranked below `beam` is not finished: it was not among the best. The batch rows
// the survivors extend are appended to `parents`, unless the search is now done.
void extend_beams(BeamSearch& search, const double* rows, int64_t vocab, int64_t first_row,
                  const SearchOptions& options, const std::vector<char>& allowed,
                  std::vector<int64_t>& parents) {
  const int64_t alive = static_cast<int64_t>(search.beams.size());
  std::vector<Candidate> candidates;
  for (int64_t b = 0; b < alive; ++b)
    best_of_row(rows + b * vocab, vocab, search.beams[b].log_prob, b, 2 * options.beam, allowed,
                candidates);
  const int64_t ranked = std::min<int64_t>(2 * options.beam, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + ranked, candidates.end(), better);
  std::vector<Hypothesis> next;
  std::vector<int64_t> next_parents;
  for (int64_t c = 0; c < ranked && static_cast<int64_t>(next.size()) < options.beam; ++c) {
    const int64_t b = candidates[c].second / vocab, token = candidates[c].second % vocab;
    if (token == options.eos_id && c >= options.beam) continue;
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

// The best hypothesis by log p / lp(n), n = tokens after the start, without the start and eos:
// its answer once it stops, and its best guess so far before. A search that stopped because
// `beam` hypotheses had finished answers with one of them: an alive prefix has not paid for its
// remaining tokens and its eos yet, so its score is not comparable (it would win by being cut
// short). Before that, and after max_length steps, the alive ones count too (they ran out of
// steps).
std::vector<int64_t> best_output(const BeamSearch& search, const SearchOptions& options) {
  auto score = [&](const Hypothesis& h) {
    const double n = static_cast<double>(h.prefix.size() - search.start_length);
    return h.log_prob / std::pow((5.0 + n) / 6.0, options.length_penalty);
  };
  const Hypothesis* best = nullptr;
  const bool finished_only = search.done && !search.finished.empty();
  for (const auto* hypotheses : {&search.finished, &search.beams})
    for (const Hypothesis& h : *hypotheses)
      if (hypotheses == &search.finished || !finished_only)
        if (best == nullptr || score(*best) < score(h)) best = &h;
  std::vector<int64_t> output;
  for (size_t i = search.start_length; i < best->prefix.size() && best->prefix[i] != options.eos_id;
       ++i)
    output.push_back(best->prefix[i]);
  return output;
}

}  // namespace

std::vector<std::vector<int64_t>> beam_search(NextTokenScorer& scorer,
                                              const std::vector<std::vector<int64_t>>& starts,
                                              const SearchOptions& options) {
  // The rows of the batch are the alive hypotheses of the starts not done, start by start.
  std::vector<BeamSearch> searches(starts.size());
  for (size_t i = 0; i < starts.size(); ++i) {
    searches[i].start_length = starts[i].size();
    searches[i].beams = {{starts[i], 0.0}};
  }
  std::vector<double> log_probs;
  std::vector<char> allowed;
  for (int64_t step = 0; step < options.max_length; ++step) {
    std::vector<std::vector<int64_t>> prefixes;
    for (const auto& search : searches)
      if (!search.done)
        for (const auto& beam : search.beams) prefixes.push_back(beam.prefix);
    if (prefixes.empty()) break;
    detail::read_scores(log_softmax(scorer.logits(prefixes), -1), log_probs);
    const int64_t vocab = static_cast<int64_t>(log_probs.size() / prefixes.size());
    if (allowed.empty()) allowed = detail::may_output(vocab, options);

    std::vector<int64_t> parents;  // the row each hypothesis of the next step extends
    int64_t first_row = 0;         // the current start's first row
    for (auto& search : searches) {
      if (search.done) continue;
      const int64_t alive = static_cast<int64_t>(search.beams.size());
      extend_beams(search, &log_probs[first_row * vocab], vocab, first_row, options, allowed,
                   parents);
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

}  // namespace atencion::examples::decoding

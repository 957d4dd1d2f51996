// examples/base/decoding/search.h — from a model's next-token scores to output sequences:
// greedy, beam search and sampling, written once over NextTokenScorer (next_token_scorer.h).
// Lessons: docs/12-translation.md#decoding, docs/15-gpt.md#sampling
//
// Each row starts from its own prefix (the translator's bos, the GPT's prompt) and adds one token
// at a time:
//   greedy:  y_t = argmax_v p(v | start, y_<t), until eos or max_length.
//   beam:    keep the K best prefixes by total log-probability; extend each by every token and
//            keep the K best of the K·V candidates; a prefix that ends in eos is finished.
//            Finished prefixes are ranked by log p / lp(length) with GNMT's length penalty
//            lp(n) = ((5 + n) / 6)^alpha, so longer outputs are not punished merely for
//            having more factors below 1.
//   sample:  y_t drawn from p(· | start, y_<t) after temperature, top-k and top-p (sampling.h),
//            each row with its own generator seeded with sampling.seed: a row draws what it
//            would draw alone.
// No search outputs a token of never_output (the translator's pad and bos), so a beam of width 1
// makes the same choices as greedy. Greedy and beam search rank log_softmax(logits) (float32,
// as the model gives them); sampling reads the logits as float64.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "base/decoding/next_token_scorer.h"
#include "base/decoding/sampling.h"

namespace atencion::examples::decoding {

struct SearchOptions {
  int64_t beam = 1;             // 1: greedy; more: beam search of that width
  bool sample = false;          // draw each token instead (beam must be 1)
  SamplingOptions sampling;     // temperature, top-k, top-p, seed, when sampling
  int64_t max_length = 64;      // tokens after the start, eos excluded
  double length_penalty = 0.6;  // alpha of lp(n); 0 ranks by plain log-probability
  int64_t eos_id = -1;          // the token that ends an output; -1: none, run to max_length
  std::vector<int64_t> never_output;  // tokens no search chooses
  // Called after every step with a row's output so far (tokens after its start, without eos),
  // for each row still searching: greedy's and sampling's prefix, or beam search's best
  // hypothesis by the same score as its answer. What a server streams; it changes no output.
  std::function<void(size_t row, const std::vector<int64_t>& output)> on_step;
};

// The tokens after each start (without eos), by greedy, beam search or sampling as `options`
// say. The starts have the same length (a batch of prompts of different lengths is several
// searches); `scorer` is fresh (nothing fed yet), with room for starts.size() × beam rows.
// Throws std::invalid_argument for beam below 1, max_length below 0, starts of different
// lengths, or beam > 1 with sample.
std::vector<std::vector<int64_t>> search(NextTokenScorer& scorer,
                                         const std::vector<std::vector<int64_t>>& starts,
                                         const SearchOptions& options);

// Each of the three, whatever options.beam and options.sample say (search() picks one; a test
// may run beam search of width 1 to check that it gives greedy's output).
std::vector<std::vector<int64_t>> greedy(NextTokenScorer& scorer,
                                         const std::vector<std::vector<int64_t>>& starts,
                                         const SearchOptions& options);
std::vector<std::vector<int64_t>> beam_search(NextTokenScorer& scorer,
                                              const std::vector<std::vector<int64_t>>& starts,
                                              const SearchOptions& options);
std::vector<std::vector<int64_t>> sample(NextTokenScorer& scorer,
                                         const std::vector<std::vector<int64_t>>& starts,
                                         const SearchOptions& options);

namespace detail {
// The [rows, vocab] scores as doubles in `out`, which is reused from step to step: a step then
// neither allocates a fresh buffer of rows · vocab doubles nor converts through the strided
// loops of to_vector.
void read_scores(const Tensor& scores, std::vector<double>& out);
// 1 for each token of the vocabulary a search may output, 0 for those of never_output.
std::vector<char> may_output(int64_t vocab, const SearchOptions& options);
// Greedy's choice: argmax_v log_probs[v] over the tokens `allowed` (the first one on ties, as
// torch).
int64_t best_token(const double* log_probs, int64_t vocab, const std::vector<char>& allowed);
}  // namespace detail

}  // namespace atencion::examples::decoding

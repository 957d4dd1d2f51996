// examples/base/decoding/step_record.h — which row of which step made each output, so that what a
// model computed at each step of a search (its attention weights, the next token's
// probabilities) can be read back per output: the maps of a decoded sentence come from the
// decoding itself, not from a second forward.
// Lessons: docs/12-translation.md#heat-maps, docs/17-serving.md#the-api
//
// A search (search.h) calls logits(prefixes) once a step, one row per live prefix, and
// keep_rows(parents) when rows leave or reorder (next_token_scorer.h). StepRecord sits between a
// search and a scorer, passes both calls on, and notes at step k each row's parent (the row of
// step k - 1 it continues), the start it descends from and its prefix. An output of start s is
// then traced back from its last step n - 1:
//   row[n - 1] = the row whose prefix was start + output (it chose eos), or start + output less
//                its last token (max_length ended the search after that row chose it);
//   row[k - 1] = the parent of row[k].
// So a decoded output of m tokens ran m + 1 steps when it ended with eos (the last one chose
// eos), m when max_length cut it. Beam search's hypotheses trace back through their parents
// like greedy's rows. For the starts it is asked about, each step also keeps each row's
// `alternatives` likeliest tokens and their probabilities, softmax of that step's logits.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "base/decoding/next_token_scorer.h"

namespace atencion::examples::decoding {

// One candidate for the next token and the model's probability of it.
struct Likely {
  int64_t id = 0;
  double probability = 0;
};

// The `kept` likeliest of one row's probabilities [vocab], best first (ties to the smaller id:
// an equal probability later in the row does not displace it), by one pass over the row.
std::vector<Likely> likeliest_of(const double* probabilities, int64_t vocab, size_t kept);

class StepRecord : public NextTokenScorer {
 public:
  // `wanted`: per start, 1 to keep its rows' alternatives and prefixes (empty: every start).
  StepRecord(NextTokenScorer& scorer, std::vector<char> wanted, int64_t alternatives);

  Tensor logits(const std::vector<std::vector<int64_t>>& prefixes) override;
  void keep_rows(const std::vector<int64_t>& parents) override;

  // The row of each step 0 .. n - 1 that made `output` (tokens after the start, without eos) of
  // start `start`. Throws std::invalid_argument when no step of a wanted start had its prefix.
  std::vector<int64_t> rows(size_t start, const std::vector<int64_t>& output) const;
  // Step `step`'s row `row`: its `alternatives` likeliest next tokens, best first (ties to the
  // smaller id, as greedy's argmax).
  const std::vector<Likely>& likeliest(size_t step, int64_t row) const;

 private:
  bool wanted(size_t start) const { return wanted_.empty() || wanted_[start] != 0; }
  void keep_likeliest(const Tensor& logits);

  NextTokenScorer& scorer_;
  std::vector<char> wanted_;
  int64_t alternatives_;
  std::vector<size_t> start_of_row_;         // the current rows' starts
  std::vector<int64_t> parent_of_row_;       // since the last step (empty: each row its own)
  std::vector<std::vector<int64_t>> parents_;  // per step, per row: its row of the step before
  std::vector<std::vector<std::vector<Likely>>> likeliest_;  // per step, per row
  std::vector<std::vector<int64_t>> starts_;  // the first step's prefixes
  // Per start: each prefix a step fed, and the (step, row) that fed it.
  std::vector<std::map<std::vector<int64_t>, std::pair<size_t, int64_t>>> fed_;
};

}  // namespace atencion::examples::decoding

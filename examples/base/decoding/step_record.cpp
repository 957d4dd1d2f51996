// examples/base/decoding/step_record.cpp — see step_record.h.
#include "base/decoding/step_record.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "base/decoding/search.h"
#include "tensor/ops.h"

namespace atencion::examples::decoding {

StepRecord::StepRecord(NextTokenScorer& scorer, std::vector<char> wanted, int64_t alternatives)
    : scorer_(scorer), wanted_(std::move(wanted)), alternatives_(alternatives) {}

Tensor StepRecord::logits(const std::vector<std::vector<int64_t>>& prefixes) {
  const size_t step = parents_.size();
  if (step == 0) {  // the starts: row r is start r
    start_of_row_.resize(prefixes.size());
    std::iota(start_of_row_.begin(), start_of_row_.end(), 0);
    starts_ = prefixes;
    fed_.resize(prefixes.size());
  }
  std::vector<int64_t> parents = parent_of_row_;
  if (parents.empty()) {  // no row left or moved since the last step
    parents.resize(prefixes.size());
    std::iota(parents.begin(), parents.end(), 0);
  }
  parents_.push_back(std::move(parents));
  parent_of_row_.clear();
  for (size_t r = 0; r < prefixes.size(); ++r)
    if (wanted(start_of_row_[r]))
      fed_[start_of_row_[r]][prefixes[r]] = {step, static_cast<int64_t>(r)};
  Tensor scores = scorer_.logits(prefixes);
  keep_likeliest(scores);
  return scores;
}

void StepRecord::keep_rows(const std::vector<int64_t>& parents) {
  scorer_.keep_rows(parents);
  std::vector<size_t> starts;
  std::vector<int64_t> composed;  // two calls between steps: row i continues old[parents[i]]
  for (const int64_t parent : parents) {
    starts.push_back(start_of_row_[static_cast<size_t>(parent)]);
    composed.push_back(parent_of_row_.empty() ? parent
                                              : parent_of_row_[static_cast<size_t>(parent)]);
  }
  start_of_row_ = std::move(starts);
  parent_of_row_ = std::move(composed);
}

std::vector<int64_t> StepRecord::rows(size_t start, const std::vector<int64_t>& output) const {
  if (start >= fed_.size() || !wanted(start))
    throw std::invalid_argument("StepRecord::rows: start " + std::to_string(start) +
                                " was not recorded");
  std::vector<int64_t> prefix = starts_[start];
  prefix.insert(prefix.end(), output.begin(), output.end());
  auto found = fed_[start].find(prefix);
  if (found == fed_[start].end() && !output.empty()) {  // cut by max_length
    prefix.pop_back();
    found = fed_[start].find(prefix);
  }
  if (found == fed_[start].end())
    throw std::invalid_argument("StepRecord::rows: no step fed start " + std::to_string(start) +
                                "'s output of " + std::to_string(output.size()) + " tokens");
  auto [step, row] = found->second;
  std::vector<int64_t> result(step + 1);
  for (size_t k = step + 1; k-- > 0;) {
    result[k] = row;
    if (k > 0) row = parents_[k][static_cast<size_t>(row)];
  }
  return result;
}

const std::vector<Likely>& StepRecord::likeliest(size_t step, int64_t row) const {
  return likeliest_.at(step).at(static_cast<size_t>(row));
}

std::vector<Likely> likeliest_of(const double* probabilities, int64_t vocab, size_t kept) {
  std::vector<Likely> best;  // best first, at most `kept`
  if (kept == 0) return best;
  for (int64_t v = 0; v < vocab; ++v) {
    if (best.size() == kept && probabilities[v] <= best.back().probability) continue;
    if (best.size() == kept) best.pop_back();
    auto at = std::find_if(best.begin(), best.end(),
                           [&](const Likely& l) { return probabilities[v] > l.probability; });
    best.insert(at, {v, probabilities[v]});
  }
  return best;
}

// softmax(logits) of each wanted row (the library's softmax: one vectorised pass a row), its
// alternatives_ likeliest kept (likeliest_of).
void StepRecord::keep_likeliest(const Tensor& logits) {
  likeliest_.emplace_back(start_of_row_.size());
  if (alternatives_ <= 0) return;
  std::vector<double> probabilities;
  detail::read_scores(softmax(logits, -1), probabilities);
  const int64_t vocab = static_cast<int64_t>(probabilities.size() / start_of_row_.size());
  const size_t kept = static_cast<size_t>(std::min(alternatives_, vocab));
  for (size_t r = 0; r < start_of_row_.size(); ++r)
    if (wanted(start_of_row_[r]))
      likeliest_.back()[r] =
          likeliest_of(probabilities.data() + r * static_cast<size_t>(vocab), vocab, kept);
}

}  // namespace atencion::examples::decoding

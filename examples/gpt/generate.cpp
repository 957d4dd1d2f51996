// examples/gpt/generate.cpp — see generate.h. Lesson: docs/15-gpt.md#sampling
#include "gpt/generate.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "base/decoding/search.h"
#include "nn/eval_scope.h"

namespace atencion::examples::gpt {

GptScorer::GptScorer(GPT& model, int64_t rows) : model_(model), max_rows_(rows) {}

Tensor GptScorer::logits(const std::vector<std::vector<int64_t>>& prefixes) {
  const int64_t rows = static_cast<int64_t>(prefixes.size());
  const int64_t context = model_.config().context;
  const size_t length = prefixes[0].size();
  size_t from = fed_;  // the first position not yet in the cache
  if (cache_.empty()) cache_ = model_.make_cache(rows, context, max_rows_);
  if (cache_[0].length() + static_cast<int64_t>(length - from) > context) {
    // full: start again from the last half of the text
    cache_ = model_.make_cache(rows, context, max_rows_);
    from = length - static_cast<size_t>(std::max<int64_t>(1, context / 2));
  }
  const int64_t count = static_cast<int64_t>(length - from);
  std::vector<int64_t> ids;
  ids.reserve(rows * count);
  for (const auto& prefix : prefixes) ids.insert(ids.end(), prefix.begin() + from, prefix.end());
  fed_ = length;
  // logits [rows, count, vocab]: the last position predicts the next token
  return model_.forward(Tensor::from_ids(ids, {rows, count}), cache_).value().select(1, count - 1);
}

void GptScorer::keep_rows(const std::vector<int64_t>& parents) {
  for (nn::KeyValueCache& layer : cache_) layer.reorder(parents);
}

std::vector<int64_t> generate(GPT& model, const std::vector<int64_t>& prompt,
                              const GenerateOptions& options,
                              const std::function<void(int64_t)>& on_token) {
  const int64_t context = model.config().context;
  if (prompt.empty()) throw std::invalid_argument("generate: an empty prompt");
  if (static_cast<int64_t>(prompt.size()) > context)
    throw std::invalid_argument("the prompt is " + std::to_string(prompt.size()) +
                                " tokens, longer than the model's context of " +
                                std::to_string(context));
  if (options.beam < 0)
    throw std::invalid_argument("generate: beam must be at least 0, not " +
                                std::to_string(options.beam));
  nn::EvalScope scope(model);
  decoding::SearchOptions search;
  search.max_length = options.max_new_tokens;
  search.sample = options.beam == 0;
  search.beam = std::max<int64_t>(1, options.beam);
  search.sampling = options.sampling;
  if (search.sample && on_token)  // each token as it is drawn
    search.on_step = [&](size_t, const std::vector<int64_t>& output) { on_token(output.back()); };
  GptScorer scorer(model, search.beam);
  const std::vector<int64_t> generated = decoding::search(scorer, {prompt}, search)[0];
  if (!search.sample && on_token)
    for (const int64_t token : generated) on_token(token);
  return generated;
}

}  // namespace atencion::examples::gpt

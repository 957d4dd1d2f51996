// examples/gpt/instructions.cpp — see instructions.h.
#include "gpt/instructions.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "base/data/shuffle.h"
#include "base/decoding/search.h"
#include "gpt/generate.h"
#include "nn/eval_scope.h"
#include "nn/loss.h"

namespace atencion::examples::gpt {

std::string instruction_prompt(std::string_view spanish) {
  return "Spanish: " + std::string(spanish) + "\nEnglish:";
}

std::string instruction_answer(std::string_view english) {
  return " " + std::string(english) + "\n";
}

std::vector<Instruction> encode_instructions(const std::vector<SentencePair>& pairs,
                                             const TextTokenizer& tokenizer, int64_t context) {
  std::vector<Instruction> examples;
  for (const SentencePair& pair : pairs) {
    Instruction example;
    example.ids = tokenizer.encode(instruction_prompt(pair.source));
    example.prompt_length = static_cast<int64_t>(example.ids.size());
    const std::vector<int64_t> answer = tokenizer.encode(instruction_answer(pair.target));
    example.ids.insert(example.ids.end(), answer.begin(), answer.end());
    if (static_cast<int64_t>(example.ids.size()) <= context + 1) examples.push_back(example);
  }
  return examples;
}

TokenBatch instruction_batch(const std::vector<Instruction>& examples,
                             const std::vector<size_t>& rows) {
  size_t longest = 2;
  for (const size_t row : rows) longest = std::max(longest, examples.at(row).ids.size());
  const auto length = static_cast<int64_t>(longest) - 1;
  const auto batch = static_cast<int64_t>(rows.size());
  std::vector<int64_t> ids(static_cast<size_t>(batch * length), 0);
  std::vector<int64_t> targets(ids.size(), nn::kIgnoreIndex);
  for (size_t r = 0; r < rows.size(); ++r) {
    const Instruction& example = examples[rows[r]];
    const auto n = static_cast<int64_t>(example.ids.size());
    int64_t* row_ids = ids.data() + static_cast<int64_t>(r) * length;
    int64_t* row_targets = targets.data() + static_cast<int64_t>(r) * length;
    for (int64_t t = 0; t + 1 < n; ++t) {
      row_ids[t] = example.ids[static_cast<size_t>(t)];
      // position t predicts x_{t+1} (0-based: ids[t + 1]); only an answer token counts
      if (t + 1 >= example.prompt_length) row_targets[t] = example.ids[static_cast<size_t>(t + 1)];
    }
  }
  return {Tensor::from_ids(ids, {batch, length}), Tensor::from_ids(targets, {batch, length})};
}

int64_t answer_tokens(const TokenBatch& batch) { return nn::counted_rows(batch.targets).count; }

InstructionStream::InstructionStream(const std::vector<Instruction>& examples,
                                     int64_t batch_size, uint64_t seed, BatchPosition start)
    : examples_(examples), batch_size_(batch_size), seed_(seed), position_(start) {
  if (static_cast<int64_t>(examples.size()) < batch_size)
    throw std::invalid_argument("instructions: " + std::to_string(examples.size()) +
                                " pairs fit the context, fewer than one batch of " +
                                std::to_string(batch_size) +
                                " (a larger --context or a smaller --batch-size)");
  plan();
}

int64_t InstructionStream::batches_per_epoch() const {
  return static_cast<int64_t>(examples_.size()) / batch_size_;
}

void InstructionStream::plan() {
  order_.resize(examples_.size());
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  SplitMix64 generator(derive_seed(seed_, static_cast<uint64_t>(position_.epoch)));
  shuffle(order_, generator);
}

TokenBatch InstructionStream::next() {
  if (position_.batch >= batches_per_epoch()) {
    position_ = {position_.epoch + 1, 0};
    plan();
  }
  const auto first = order_.begin() + position_.batch * batch_size_;
  ++position_.batch;
  return instruction_batch(examples_, std::vector<size_t>(first, first + batch_size_));
}

std::vector<TokenBatch> instruction_batches(const std::vector<Instruction>& examples,
                                            int64_t batch_size) {
  std::vector<TokenBatch> batches;
  for (size_t start = 0; start < examples.size(); start += static_cast<size_t>(batch_size)) {
    std::vector<size_t> rows;
    for (size_t i = start; i < std::min(examples.size(), start + static_cast<size_t>(batch_size)); ++i)
      rows.push_back(i);
    batches.push_back(instruction_batch(examples, rows));
  }
  return batches;
}

namespace {

// The answer's text: decoded, without the space the answer starts with or a trailing newline.
std::string answer_text(const TextTokenizer& tokenizer, const std::vector<int64_t>& ids) {
  std::string text = tokenizer.decode(ids);
  const size_t first = text.find_first_not_of(" \n");
  const size_t last = text.find_last_not_of(" \n");
  return first == std::string::npos ? "" : text.substr(first, last - first + 1);
}

}  // namespace

std::vector<std::string> translate_sentences(GPT& model, const TextTokenizer& tokenizer,
                                             const std::vector<std::string>& spanish,
                                             int64_t max_new_tokens, int64_t batch_size) {
  nn::EvalScope scope(model);
  decoding::SearchOptions search;  // greedy
  search.max_length = max_new_tokens;
  search.eos_id = tokenizer.encode("\n").back();  // the newline that ends an answer
  // Prompts by length (a search's starts have one length), in their order within a length.
  std::map<size_t, std::vector<size_t>> by_length;
  std::vector<std::vector<int64_t>> prompts;
  for (size_t i = 0; i < spanish.size(); ++i) {
    prompts.push_back(tokenizer.encode(instruction_prompt(spanish[i])));
    by_length[prompts.back().size()].push_back(i);
  }
  std::vector<std::string> translations(spanish.size());
  for (const auto& [length, indices] : by_length)
    for (size_t start = 0; start < indices.size(); start += static_cast<size_t>(batch_size)) {
      const size_t end = std::min(indices.size(), start + static_cast<size_t>(batch_size));
      std::vector<std::vector<int64_t>> starts;
      for (size_t i = start; i < end; ++i) starts.push_back(prompts[indices[i]]);
      GptScorer scorer(model, static_cast<int64_t>(starts.size()));
      const auto outputs = decoding::search(scorer, starts, search);
      for (size_t i = start; i < end; ++i)
        translations[indices[i]] = answer_text(tokenizer, outputs[i - start]);
    }
  return translations;
}

}  // namespace atencion::examples::gpt

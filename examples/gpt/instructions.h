// examples/gpt/instructions.h — the translator's Spanish–English pairs as instructions for the
// GPT: "Spanish: <source>\nEnglish:" is the prompt, " <target>\n" the answer, and the loss
// counts the answer's tokens only.
// Lesson: docs/18-finetuning.md#the-gpt-instruction-fine-tuning
//
// One example x_1 .. x_n (prompt tokens x_1 .. x_p, then the answer) teaches the predictions
// x_{t+1} given x_1 .. x_t. Instruction fine-tuning keeps only those whose target is an answer
// token, t + 1 > p:
//   loss = −(1 / #answer) Σ_{t = p}^{n−1} log P(x_{t+1} | x_1 .. x_t)
// The prompt is read (its tokens are the context of every answer token) but never predicted:
// its targets are nn::kIgnoreIndex, so they add nothing to the loss and nothing to the gradient.
// A batch pads its rows on the right to the longest; with the causal mask a padded position
// never reaches a real one, and its target is ignored too.
// Data: the pairs (the shipped Tatoeba pairs, CC BY 2.0 FR: examples/translate/data/README.md)
// cut by split_run_pairs (base/data/split.h), the translator's split: the same test sentences.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/data/batching.h"
#include "base/data/tsv.h"
#include "gpt/gpt.h"
#include "gpt/text_data.h"
#include "gpt/text_tokenizer.h"

namespace atencion::examples::gpt {

std::string instruction_prompt(std::string_view spanish);  // "Spanish: <spanish>\nEnglish:"
std::string instruction_answer(std::string_view english);  // " <english>\n"

// One pair as tokens: the prompt's, then the answer's (each encoded on its own, so the prompt
// a translation starts from is the same tokens as in training).
struct Instruction {
  std::vector<int64_t> ids;
  int64_t prompt_length = 0;
};

// The pairs that fit in context + 1 tokens, encoded (the others are left out: a truncated
// answer would teach the model to stop early).
std::vector<Instruction> encode_instructions(const std::vector<SentencePair>& pairs,
                                             const TextTokenizer& tokenizer, int64_t context);

// The examples at `rows`, padded to the longest minus one: ids [B, T] = x_1 .. x_{n−1}, targets
// [B, T] = x_{t+1} on the answer, nn::kIgnoreIndex on the prompt and the padding.
TokenBatch instruction_batch(const std::vector<Instruction>& examples,
                             const std::vector<size_t>& rows);
// The number of targets a batch's loss counts (its answer tokens).
int64_t answer_tokens(const TokenBatch& batch);

// The examples in an order shuffled from (seed, epoch), batch_size a batch (the last partial
// batch of an epoch left out), from a position: --resume continues exactly.
class InstructionStream {
 public:
  // Throws std::invalid_argument when there are fewer examples than one batch.
  InstructionStream(const std::vector<Instruction>& examples, int64_t batch_size, uint64_t seed,
                    BatchPosition start = {});
  TokenBatch next();
  BatchPosition position() const { return position_; }
  int64_t batches_per_epoch() const;

 private:
  void plan();
  const std::vector<Instruction>& examples_;
  int64_t batch_size_;
  uint64_t seed_;
  BatchPosition position_;
  std::vector<size_t> order_;
};

// The examples in order, batch_size a batch: the held-out loss's batches.
std::vector<TokenBatch> instruction_batches(const std::vector<Instruction>& examples,
                                            int64_t batch_size);

// Each Spanish sentence translated: greedy decoding after its prompt, up to the newline that ends
// an answer (or max_new_tokens), the answer's text without its leading space. Prompts of the same
// length are decoded together, `batch_size` at a time. Eval mode, no graph.
std::vector<std::string> translate_sentences(GPT& model, const TextTokenizer& tokenizer,
                                             const std::vector<std::string>& spanish,
                                             int64_t max_new_tokens = 64,
                                             int64_t batch_size = 32);

}  // namespace atencion::examples::gpt

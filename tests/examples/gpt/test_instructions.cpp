// tests/examples/gpt/test_instructions.cpp — examples/gpt/instructions.cpp: the pairs as
// "Spanish: … English: …" instructions, the loss on the answer tokens only, the batch stream.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/ops.h"
#include "gpt/instructions.h"
#include "nn/loss.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::gpt;

namespace {

const std::vector<SentencePair> kPairs = {{"Hola.", "Hello."}, {"Ve.", "Go."},
                                          {"Gracias.", "Thanks."}, {"Corre.", "Run."}};

GPTConfig tiny_config() {
  GPTConfig config;
  config.vocab = 256;
  config.context = 40;
  config.d_model = 16;
  config.heads = 2;
  config.layers = 2;
  config.dropout = 0;
  return config;
}

}  // namespace

TEST_CASE("instructions: the prompt, then the answer, and its targets only", "[instructions]") {
  const auto tokenizer = TextTokenizer::bytes();
  const TextTokenizer& bytes = *tokenizer;
  const auto examples = encode_instructions(kPairs, bytes, 40);
  REQUIRE(examples.size() == 4);
  CHECK(bytes.decode(examples[0].ids) == "Spanish: Hola.\nEnglish: Hello.\n");
  CHECK(examples[0].prompt_length == static_cast<int64_t>(std::string("Spanish: Hola.\nEnglish:").size()));
  const TokenBatch batch = instruction_batch(examples, {1, 0});  // "Ve." is the shorter
  const int64_t length = static_cast<int64_t>(examples[0].ids.size()) - 1;
  REQUIRE(batch.ids.shape() == std::vector<int64_t>{2, length});
  const Tensor targets = batch.targets;
  for (int64_t t = 0; t < length; ++t) {
    // row 1 ("Hola."): position t predicts ids[t + 1], counted from the answer's first token
    const int64_t expected = t + 1 >= examples[0].prompt_length ? examples[0].ids[static_cast<size_t>(t + 1)]
                                                                 : nn::kIgnoreIndex;
    CHECK(static_cast<int64_t>(targets.at({1, t})) == expected);
  }
  // row 0 ("Ve.", shorter): its padding is ignored too
  const int64_t short_length = static_cast<int64_t>(examples[1].ids.size()) - 1;
  for (int64_t t = short_length; t < length; ++t)
    CHECK(static_cast<int64_t>(targets.at({0, t})) == nn::kIgnoreIndex);
  CHECK(answer_tokens(batch) == static_cast<int64_t>(std::string(" Hello.\n").size() +
                                                     std::string(" Go.\n").size()));
  // an example longer than context + 1 tokens is left out
  CHECK(encode_instructions(kPairs, bytes, 20).empty());
}

TEST_CASE("instructions: the prompt tokens contribute zero gradient, the answer's do not",
          "[instructions]") {
  const auto examples = encode_instructions(kPairs, *TextTokenizer::bytes(), 40);
  const TokenBatch batch = instruction_batch(examples, {0, 1});
  Generator generator(3);
  GPT model(tiny_config(), generator);
  model.to(DType::Float64);
  // The last hidden states as a leaf: the loss's gradient reaches each position through them.
  Variable hidden(model.hidden_states(batch.ids).value(), true);
  nn::linear_cross_entropy(hidden, model.token_embedding->weight, Variable(), batch.targets)
      .backward();
  const Tensor grad = hidden.grad();
  for (int64_t row = 0; row < 2; ++row)
    for (int64_t t = 0; t < batch.ids.size(1); ++t) {
      double size = 0;
      for (int64_t j = 0; j < 16; ++j) size += std::abs(static_cast<double>(grad.at({row, t, j})));
      const bool answer = static_cast<int64_t>(batch.targets.at({row, t})) != nn::kIgnoreIndex;
      INFO("row " << row << ", position " << t);
      if (answer) CHECK(size > 0);
      else CHECK(size == 0.0);
    }
}

TEST_CASE("instructions: the loss is the mean over the answer tokens", "[instructions]") {
  const auto examples = encode_instructions(kPairs, *TextTokenizer::bytes(), 40);
  const TokenBatch batch = instruction_batch(examples, {2, 3});
  Generator generator(4);
  GPT model(tiny_config(), generator);
  model.to(DType::Float64);
  const double loss = model.loss(batch.ids, batch.targets).item();
  const Tensor log_p = log_softmax(model.forward(batch.ids), -1).value();
  double sum = 0;
  int64_t count = 0;
  for (int64_t row = 0; row < 2; ++row)
    for (int64_t t = 0; t < batch.ids.size(1); ++t) {
      const auto target = static_cast<int64_t>(batch.targets.at({row, t}));
      if (target == nn::kIgnoreIndex) continue;
      sum -= static_cast<double>(log_p.at({row, t, target}));
      ++count;
    }
  CHECK(count == answer_tokens(batch));
  CHECK(loss == Approx(sum / static_cast<double>(count)).epsilon(1e-12));
}

TEST_CASE("instructions: the stream resumes at a position with the batch it would have given",
          "[instructions]") {
  const auto examples = encode_instructions(kPairs, *TextTokenizer::bytes(), 40);
  InstructionStream stream(examples, 2, 7);
  for (int i = 0; i < 3; ++i) stream.next();  // into the second epoch
  const BatchPosition at = stream.position();
  CHECK(at.epoch == 1);
  const TokenBatch expected = stream.next();
  InstructionStream resumed(examples, 2, 7, at);
  const TokenBatch batch = resumed.next();
  CHECK(allclose(batch.ids, expected.ids, 0, 0));
  CHECK(allclose(batch.targets, expected.targets, 0, 0));
  CHECK_THROWS_WITH(InstructionStream(examples, 5, 7),
                    "instructions: 4 pairs fit the context, fewer than one batch of 5 (a larger --context "
                    "or a smaller --batch-size)");
}

TEST_CASE("instructions: translations stop at the newline, one per sentence, batched or not",
          "[instructions]") {
  Generator generator(5);
  GPT model(tiny_config(), generator);
  const auto tokenizer = TextTokenizer::bytes();
  const TextTokenizer& bytes = *tokenizer;
  const std::vector<std::string> spanish = {"Hola.", "Ve.", "Hola.", "Gracias."};
  const auto together = translate_sentences(model, bytes, spanish, 6, 4);
  REQUIRE(together.size() == 4);
  CHECK(together[0] == together[2]);  // greedy: the same sentence, the same answer
  for (size_t i = 0; i < spanish.size(); ++i) {
    CHECK(together[i].find('\n') == std::string::npos);
    CHECK(translate_sentences(model, bytes, {spanish[i]}, 6, 1)[0] == together[i]);
  }
}

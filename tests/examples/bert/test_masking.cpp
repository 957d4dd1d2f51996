// Tests for examples/bert/masking.cpp: BERT's 15% / 80-10-10 rule, measured over many sentences.
#include <catch2/catch.hpp>

#include <vector>

#include "bert/wordpiece.h"
#include "bert/masking.h"
#include "bert/pieces.h"

using namespace atencion::examples;
using namespace atencion::examples::bert;

namespace {

const WordPieces& pieces() {
  static const WordPieces fixture(WordPiece::load(ATENCION_FIXTURES_DIR "/bert-tiny/vocab.txt"));
  return fixture;
}

}  // namespace

TEST_CASE("masking: 15% of the pieces chosen, of those 80% masked, 10% random, 10% unchanged") {
  const std::vector<int64_t> sentence =
      pieces().encode("i gave the dog a bone because it was hungry and the dog was not");
  int64_t pieces_seen = 0, chosen = 0, masked = 0, replaced = 0, kept = 0;
  for (uint64_t seed = 0; seed < 4000; ++seed) {
    const MaskedSentence out = mask_sentence(sentence, pieces(), seed);
    REQUIRE(out.input_ids.size() == sentence.size());
    for (size_t i = 0; i < sentence.size(); ++i) {
      if (pieces().is_special(sentence[i])) {  // [CLS] and [SEP]: never chosen, never changed
        CHECK(out.labels[i] == -100);
        CHECK(out.input_ids[i] == sentence[i]);
        continue;
      }
      ++pieces_seen;
      if (out.labels[i] == -100) {
        CHECK(out.input_ids[i] == sentence[i]);  // not chosen: as it was
        continue;
      }
      ++chosen;
      CHECK(out.labels[i] == sentence[i]);  // the label is always the original piece
      if (out.input_ids[i] == pieces().special().mask) ++masked;
      else if (out.input_ids[i] != sentence[i]) ++replaced;
      else ++kept;
      CHECK_FALSE((out.input_ids[i] != pieces().special().mask &&
                   pieces().is_special(out.input_ids[i])));
    }
  }
  const double share = static_cast<double>(chosen) / static_cast<double>(pieces_seen);
  CHECK(share == Approx(0.15).margin(0.01));  // a little above 0.15: at least one per sentence
  CHECK(static_cast<double>(masked) / chosen == Approx(0.8).margin(0.015));
  // A random piece is sometimes the original one: counted as kept here.
  CHECK(static_cast<double>(replaced) / chosen == Approx(0.1).margin(0.01));
  CHECK(static_cast<double>(kept) / chosen == Approx(0.1).margin(0.01));
}

TEST_CASE("masking: at least one piece of every sentence, the same ones for the same seed") {
  const std::vector<int64_t> short_sentence = pieces().encode("dog");
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const MaskedSentence out = mask_sentence(short_sentence, pieces(), seed);
    CHECK(out.labels[1] == short_sentence[1]);
  }
  const std::vector<int64_t> sentence = pieces().encode("i gave the dog a bone");
  CHECK(mask_sentence(sentence, pieces(), 7).input_ids == mask_sentence(sentence, pieces(), 7).input_ids);
  CHECK(mask_sentence(sentence, pieces(), 7).labels == mask_sentence(sentence, pieces(), 7).labels);
}

TEST_CASE("pieces: the text MASK is the mask piece, with CLS and SEP around the sentence") {
  const std::vector<int64_t> ids = pieces().encode("The [MASK] gave[MASK]");
  const SpecialIds& special = pieces().special();
  CHECK(ids == std::vector<int64_t>{special.cls, pieces().encode_text("the")[0], special.mask,
                                    pieces().encode_text("gave")[0], special.mask, special.sep});
}

// tests/fuzz/fuzz_pairs.cpp — libFuzzer target: any bytes as a spanish<TAB>english pairs file
// (examples/base/data/tsv.h). The text is either refused with read_pairs' own error naming the
// file, or every pair it gives has two non-empty, trimmed sides of valid UTF-8 with no tab and
// no line break in them. Seeds: corpus/pairs/.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "fuzz_support.h"
#include "base/data/tsv.h"
#include "base/data/utf8.h"

using namespace atencion;

namespace {

bool clean_side(const std::string& side) {
  const auto is_trimmed = [](char c) { return c == ' ' || c == '\r' || c == '\v' || c == '\f'; };
  return !side.empty() && side.find_first_of("\t\n") == std::string::npos &&
         !is_trimmed(side.front()) && !is_trimmed(side.back()) &&
         !examples::find_invalid_utf8(side);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<examples::SentencePair> pairs;
  try {
    pairs = examples::parse_pairs(text, "fuzz.tsv");
  } catch (const std::invalid_argument& error) {
    fuzz::expect_own_error(error, "read_pairs: fuzz.tsv");
    return 0;
  }
  for (const auto& pair : pairs) {
    if (!clean_side(pair.source) || !clean_side(pair.target)) {
      std::fprintf(stderr, "fuzz: a pair with an empty, untrimmed or invalid side\n");
      std::abort();
    }
  }
  return 0;
}

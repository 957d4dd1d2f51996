// Tests for examples/translate/bleu.cpp: the 13a tokenizer, corpus BLEU and exact match.
//
// The expected values were worked out by hand below and checked with this independent
// Python version of sacreBLEU 2.x's defaults (sacrebleu is not installed here):
//
//   import math, re
//   from collections import Counter
//   def tok13a(line):
//       line = line.rstrip()
//       for a, b in [('<skipped>', ''), ('-\n', ''), ('\n', ' '), ('&quot;', '"'),
//                    ('&amp;', '&'), ('&lt;', '<'), ('&gt;', '>')]:
//           line = line.replace(a, b)
//       line = f' {line} '
//       line = re.sub(r'([\{-\~\[-\` -\&\(-\+\:-\@\/])', r' \1 ', line)
//       line = re.sub(r'([^0-9])([\.,])', r'\1 \2 ', line)
//       line = re.sub(r'([\.,])([^0-9])', r' \1 \2', line)
//       line = re.sub(r'([0-9])(-)', r'\1 \2 ', line)
//       return line.split()
//   def bleu(hyps, refs, smooth=True):
//       correct, total, c, r = [0] * 4, [0] * 4, 0, 0
//       for h, ref in zip(hyps, refs):
//           h, ref = tok13a(h), tok13a(ref)
//           c += len(h); r += len(ref)
//           for n in range(1, 5):
//               hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
//               rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
//               correct[n - 1] += sum(min(k, rc[g]) for g, k in hc.items())
//               total[n - 1] += max(0, len(h) - n + 1)
//       bp = 1.0 if c >= r else (math.exp(1 - r / c) if c else 0.0)
//       if not any(correct): return 0.0
//       p, div = [0.0] * 4, 1.0
//       for n in range(4):
//           if total[n] == 0: break
//           if correct[n]: p[n] = 100 * correct[n] / total[n]
//           elif smooth: div *= 2; p[n] = 100 / (div * total[n])
//       if 0.0 in p: return 0.0
//       return bp * math.exp(sum(map(math.log, p)) / 4)
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/data/bleu.h"

using namespace atencion::examples;
using Catch::Matchers::Contains;
using Strings = std::vector<std::string>;

TEST_CASE("tokenize_13a splits punctuation as mteval-v13a does", "[translate][bleu]") {
  CHECK(tokenize_13a("Hello, world!") == Strings{"Hello", ",", "world", "!"});
  CHECK(tokenize_13a("What is your name?") == Strings{"What", "is", "your", "name", "?"});
  // ' and - stay inside words; . and , stay between digits.
  CHECK(tokenize_13a("I don't know. It's 5:30.") ==
        Strings{"I", "don't", "know", ".", "It's", "5", ":", "30", "."});
  CHECK(tokenize_13a("It costs 3,000.50 dollars.") ==
        Strings{"It", "costs", "3,000.50", "dollars", "."});
  CHECK(tokenize_13a("a well-known 1990-2000 range") ==
        Strings{"a", "well-known", "1990", "-", "2000", "range"});
  CHECK(tokenize_13a("\"Yes\" (maybe) & [no] 100%") ==
        Strings{"\"", "Yes", "\"", "(", "maybe", ")", "&", "[", "no", "]", "100", "%"});
  CHECK(tokenize_13a("&quot;Tom&quot; &amp; Mary") ==
        Strings{"\"", "Tom", "\"", "&", "Mary"});
  // Non-ASCII letters are word characters; ¿ and ¡ are not in mteval's symbol list.
  CHECK(tokenize_13a("¿Qué pasó, señor?") == Strings{"¿Qué", "pasó", ",", "señor", "?"});
  // A period after a period: the scans resume after each match, as re.sub does.
  CHECK(tokenize_13a("Wait...") == Strings{"Wait", ".", ".", "."});
  CHECK(tokenize_13a("  spaced\u00A0out\t ") == Strings{"spaced", "out"});
  CHECK(tokenize_13a("").empty());
}

TEST_CASE("corpus_bleu of a perfect translation is 100", "[translate][bleu]") {
  const Strings text = {"The cat sat on the mat.", "It is raining today."};
  const BleuScore bleu = corpus_bleu(text, text);
  CHECK(bleu.score == Approx(100.0));
  CHECK(bleu.brevity_penalty == 1.0);
  CHECK(bleu.hypothesis_length == 12);  // 7 + 5 tokens with the periods
  CHECK(bleu.totals == std::array<int64_t, 4>{12, 10, 8, 6});
  CHECK(bleu.matches == std::array<int64_t, 4>{12, 10, 8, 6});
}

TEST_CASE("corpus_bleu by hand: clipping and the brevity penalty", "[translate][bleu]") {
  // Hypothesis tokens: the the the cat sat  (5)   reference: the cat sat on the mat (6)
  //   1-grams: the x3 clipped to 2, cat, sat -> 4 / 5
  //   2-grams: "the the" x2 (0), "the cat", "cat sat" -> 2 / 4
  //   3-grams: "the the the", "the the cat" (0), "the cat sat" -> 1 / 3
  //   4-grams: "the the the cat", "the the cat sat" -> 0 / 2
  // Without smoothing p4 = 0, so BLEU = 0. With "exp": p4 = 1 / (2 * 2) = 25%.
  //   BP = exp(1 - 6/5) = 0.8187307530779818
  //   BLEU = BP * exp((ln 80 + ln 50 + ln 33.333 + ln 25) / 4) = 34.9833...
  const Strings hypothesis = {"the the the cat sat"};
  const Strings reference = {"the cat sat on the mat"};
  const BleuScore smoothed = corpus_bleu(hypothesis, reference);
  CHECK(smoothed.matches == std::array<int64_t, 4>{4, 2, 1, 0});
  CHECK(smoothed.totals == std::array<int64_t, 4>{5, 4, 3, 2});
  CHECK(smoothed.precisions[0] == Approx(80.0));
  CHECK(smoothed.precisions[1] == Approx(50.0));
  CHECK(smoothed.precisions[2] == Approx(100.0 / 3.0));
  CHECK(smoothed.precisions[3] == Approx(25.0));
  CHECK(smoothed.brevity_penalty == Approx(std::exp(1.0 - 6.0 / 5.0)));
  const double expected =
      std::exp(1.0 - 6.0 / 5.0) *
      std::exp((std::log(80.0) + std::log(50.0) + std::log(100.0 / 3.0) + std::log(25.0)) / 4);
  CHECK(smoothed.score == Approx(expected));
  CHECK(smoothed.score == Approx(34.98330).epsilon(1e-5));  // the Python version above
  CHECK(corpus_bleu(hypothesis, reference, Smoothing::None).score == 0.0);
}

TEST_CASE("corpus_bleu sums counts over the corpus before dividing", "[translate][bleu]") {
  // Sentence 1: "What is your name ?" vs "What is your name ?"  -> 5/5 4/4 3/3 2/2
  // Sentence 2: "I am Tom ." vs "My name is Tom ."          -> 2/4 1/3 0/2 0/1
  //   ("Tom", "." and "Tom ." match; the hypothesis is shorter: c = 9, r = 10)
  // Corpus: p = 7/9, 5/7, 3/5, 2/3; BP = exp(1 - 10/9)
  //   BLEU = 100 * exp(-1/9) * (7/9 * 5/7 * 3/5 * 2/3)^(1/4) = 61.4387...
  const Strings hypotheses = {"What is your name?", "I am Tom."};
  const Strings references = {"What is your name?", "My name is Tom."};
  const BleuScore bleu = corpus_bleu(hypotheses, references, Smoothing::None);
  CHECK(bleu.matches == std::array<int64_t, 4>{7, 5, 3, 2});
  CHECK(bleu.totals == std::array<int64_t, 4>{9, 7, 5, 3});
  CHECK(bleu.hypothesis_length == 9);
  CHECK(bleu.reference_length == 10);
  const double expected =
      100 * std::exp(1.0 - 10.0 / 9.0) *
      std::pow(7.0 / 9.0 * 5.0 / 7.0 * 3.0 / 5.0 * 2.0 / 3.0, 0.25);
  CHECK(bleu.score == Approx(expected));
  CHECK(bleu.score == Approx(61.43869).epsilon(1e-5));  // the Python version above
  // Every order has matches, so smoothing changes nothing.
  CHECK(corpus_bleu(hypotheses, references).score == Approx(expected));
}

TEST_CASE("corpus_bleu edge cases", "[translate][bleu]") {
  // No match at all: 0 with either smoothing, as sacreBLEU returns early.
  CHECK(corpus_bleu({"xyz"}, {"abc"}).score == 0.0);
  // Too short for 4-grams: p4 has no n-grams, BLEU is 0 even with smoothing.
  CHECK(corpus_bleu({"Hi there"}, {"Hi there"}).score == 0.0);
  // An empty hypothesis: BP = 0.
  const BleuScore empty = corpus_bleu({""}, {"Hello there my friend."});
  CHECK(empty.score == 0.0);
  CHECK(empty.brevity_penalty == 0.0);
  // Longer than the reference: no penalty.
  CHECK(corpus_bleu({"a b c d e f"}, {"a b c d e"}).brevity_penalty == 1.0);
  CHECK_THROWS_WITH(corpus_bleu({"a"}, {"a", "b"}),
                    Contains("1 hypotheses but 2 references"));
}

TEST_CASE("exact_match_rate compares whole sentences, ignoring extra spaces",
          "[translate][bleu]") {
  CHECK(exact_match_rate({"What is your name?", " I am  Tom. ", "Hello."},
                         {"What is your name?", "I am Tom.", "Hello!"}) ==
        Approx(2.0 / 3.0));
  CHECK(exact_match_rate({"hello."}, {"Hello."}) == 0.0);  // case counts
  CHECK_THROWS_WITH(exact_match_rate({}, {}), Contains("no sentences"));
  CHECK_THROWS_WITH(exact_match_rate({"a"}, {}), Contains("1 hypotheses but 0 references"));
}

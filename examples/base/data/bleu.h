// examples/base/data/bleu.h — corpus BLEU-4 as sacreBLEU computes it, and the exact-match rate.
// Lesson: docs/12-translation.md#bleu
//
// BLEU (Papineni et al., 2002) compares word n-grams of the translations (hypotheses) with
// those of the references, over the whole corpus at once:
//   p_n  = (n-grams of the hypotheses also in their reference, each counted at most as
//           often as in the reference) / (n-grams of the hypotheses),   n = 1 .. 4
//   BP   = 1 if c >= r, else exp(1 - r / c)   (c, r: total hypothesis, reference words)
//   BLEU = 100 · BP · exp((log p_1 + log p_2 + log p_3 + log p_4) / 4)
// Scores depend on how text is cut into words, so we follow sacreBLEU's defaults (Post,
// 2018) exactly and our numbers compare with published ones: the "13a" tokenization of
// mteval-v13a.pl on detokenized text, mixed case, one reference per sentence, and its
// default smoothing "exp": when some p_n has no match at all, it becomes
// 1 / (2^k · n-grams of order n) for the k-th such order, instead of making BLEU 0. With any
// real test set every p_n has matches and the smoothing changes nothing; the plain
// (unsmoothed) definition is Smoothing::None.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace atencion::examples {

// sacreBLEU's tokenizer "13a": unescapes &quot; &amp; &lt; &gt;, puts spaces around
// punctuation and symbols (but not around ' or -, nor around . and , between digits), and
// splits on whitespace. "Hello, world!" -> {"Hello", ",", "world", "!"}.
std::vector<std::string> tokenize_13a(std::string_view line);

enum class Smoothing {
  Exp,   // sacreBLEU's default (smooth_method="exp")
  None,  // BLEU is 0 when any p_n is 0
};

struct BleuScore {
  double score = 0;                      // 0 .. 100
  std::array<double, 4> precisions{};    // p_1 .. p_4 in percent, after smoothing
  std::array<int64_t, 4> matches{};      // clipped matching n-grams, n = 1 .. 4
  std::array<int64_t, 4> totals{};       // n-grams in the hypotheses, n = 1 .. 4
  double brevity_penalty = 0;
  int64_t hypothesis_length = 0;         // c, in 13a tokens
  int64_t reference_length = 0;          // r, in 13a tokens
};

// Corpus BLEU-4 of `hypotheses` against `references` (one reference per hypothesis, same
// order), both detokenized text.
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::string>& references,
                      Smoothing smoothing = Smoothing::Exp);

// The fraction (0 .. 1) of hypotheses equal to their reference once leading, trailing and
// repeated whitespace is ignored. Case and punctuation count.
double exact_match_rate(const std::vector<std::string>& hypotheses,
                        const std::vector<std::string>& references);

}  // namespace atencion::examples

// examples/base/data/bleu.cpp — see bleu.h.
#include "base/data/bleu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "base/data/utf8.h"

namespace atencion::examples {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  std::string result;
  size_t start = 0;
  for (size_t found; (found = text.find(from, start)) != std::string::npos;
       start = found + from.size())
    result.append(text, start, found - start).append(to);
  return result.append(text, start);
}

// Splits on whitespace as Python's str.split() does.
std::vector<std::string> split_on_spaces(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (size_t offset = 0; offset < text.size();) {
    const CodePoint code_point = decode_utf8(text, offset);
    if (is_unicode_space(code_point.value)) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word.append(text.substr(offset, code_point.length));
    }
    offset += code_point.length;
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// mteval's first rule, the character class [{-~[-` -&(-+:-@/]: ASCII symbols and
// punctuation except ' , - . and the digits and letters.
bool is_13a_symbol(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

// The three pair rules, each a left-to-right scan that, like Python's re.sub, resumes after
// a match. Working on bytes gives the same result as on code points: the rules only test
// ASCII bytes, and a multi-byte character is copied whole either way.
std::string space_period_comma_after_non_digit(std::string_view s) {  // ([^0-9])([.,])
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (i + 1 < s.size() && !is_digit(s[i]) && (s[i + 1] == '.' || s[i + 1] == ',')) {
      out += s[i], out += ' ', out += s[i + 1], out += ' ';
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

std::string space_period_comma_before_non_digit(std::string_view s) {  // ([.,])([^0-9])
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (i + 1 < s.size() && (s[i] == '.' || s[i] == ',') && !is_digit(s[i + 1])) {
      out += ' ', out += s[i], out += ' ', out += s[i + 1];
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

std::string space_dash_after_digit(std::string_view s) {  // ([0-9])(-)
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (i + 1 < s.size() && is_digit(s[i]) && s[i + 1] == '-') {
      out += s[i], out += " - ";
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// Counts of every n-gram of `words` (joined by spaces, which no 13a token contains).
std::unordered_map<std::string, int64_t> count_ngrams(const std::vector<std::string>& words,
                                                      size_t n) {
  std::unordered_map<std::string, int64_t> counts;
  for (size_t start = 0; start + n <= words.size(); ++start) {
    std::string ngram = words[start];
    for (size_t k = 1; k < n; ++k) ngram.append(" ").append(words[start + k]);
    ++counts[ngram];
  }
  return counts;
}

// Python's str.rstrip(): sacreBLEU strips the right end before tokenizing, so that a final
// "-\n" is not read as a hyphenated line break.
std::string_view strip_right(std::string_view text) {
  size_t end = text.size();
  while (end > 0) {
    size_t start = end - 1;  // back to the start of the last code point
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    if (!is_unicode_space(decode_utf8(text, start).value)) break;
    end = start;
  }
  return text.substr(0, end);
}

}  // namespace

std::vector<std::string> tokenize_13a(std::string_view line) {
  std::string text(strip_right(line));
  // The language-independent part: markup left by the WMT sgml files.
  text = replace_all(std::move(text), "<skipped>", "");
  text = replace_all(std::move(text), "-\n", "");
  text = replace_all(std::move(text), "\n", " ");
  text = replace_all(std::move(text), "&quot;", "\"");
  text = replace_all(std::move(text), "&amp;", "&");
  text = replace_all(std::move(text), "&lt;", "<");
  text = replace_all(std::move(text), "&gt;", ">");
  // The language-dependent part (for Western languages).
  std::string spaced = " ";
  for (const char c : text) {
    if (is_13a_symbol(c)) spaced += ' ', spaced += c, spaced += ' ';
    else spaced += c;
  }
  spaced += ' ';
  spaced = space_period_comma_after_non_digit(spaced);
  spaced = space_period_comma_before_non_digit(spaced);
  spaced = space_dash_after_digit(spaced);
  return split_on_spaces(spaced);
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::string>& references, Smoothing smoothing) {
  if (hypotheses.size() != references.size())
    throw std::invalid_argument("corpus_bleu: " + std::to_string(hypotheses.size()) +
                                " hypotheses but " + std::to_string(references.size()) +
                                " references");
  constexpr size_t max_order = 4;
  BleuScore result;
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    const std::vector<std::string> hypothesis = tokenize_13a(hypotheses[i]);
    const std::vector<std::string> reference = tokenize_13a(references[i]);
    result.hypothesis_length += static_cast<int64_t>(hypothesis.size());
    result.reference_length += static_cast<int64_t>(reference.size());
    for (size_t n = 1; n <= max_order; ++n) {
      const auto reference_counts = count_ngrams(reference, n);
      for (const auto& [ngram, count] : count_ngrams(hypothesis, n)) {
        const auto found = reference_counts.find(ngram);
        if (found != reference_counts.end())
          result.matches[n - 1] += std::min(count, found->second);  // clipped count
        result.totals[n - 1] += count;
      }
    }
  }

  const double c = static_cast<double>(result.hypothesis_length);
  const double r = static_cast<double>(result.reference_length);
  result.brevity_penalty = c >= r ? 1.0 : c > 0 ? std::exp(1.0 - r / c) : 0.0;

  const bool any_match = std::any_of(result.matches.begin(), result.matches.end(),
                                     [](int64_t matches) { return matches > 0; });
  if (!any_match) return result;  // score 0, as in sacreBLEU
  double smoothing_divisor = 1;   // 2^k at the k-th order with no match ("exp")
  for (size_t n = 0; n < max_order; ++n) {
    if (result.totals[n] == 0) break;  // no n-grams this long: p_n stays 0
    const auto total = static_cast<double>(result.totals[n]);
    if (result.matches[n] > 0) {
      result.precisions[n] = 100.0 * static_cast<double>(result.matches[n]) / total;
    } else if (smoothing == Smoothing::Exp) {
      smoothing_divisor *= 2;
      result.precisions[n] = 100.0 / (smoothing_divisor * total);
    }
  }
  if (std::any_of(result.precisions.begin(), result.precisions.end(),
                  [](double precision) { return precision == 0; }))
    return result;
  double mean_log_precision = 0;
  for (const double precision : result.precisions) mean_log_precision += std::log(precision);
  mean_log_precision /= static_cast<double>(max_order);
  // The precisions are percentages, so this is already 100 · BP · exp(mean log p_n).
  result.score = result.brevity_penalty * std::exp(mean_log_precision);
  return result;
}

double exact_match_rate(const std::vector<std::string>& hypotheses,
                        const std::vector<std::string>& references) {
  if (hypotheses.size() != references.size())
    throw std::invalid_argument("exact_match_rate: " + std::to_string(hypotheses.size()) +
                                " hypotheses but " + std::to_string(references.size()) +
                                " references");
  if (hypotheses.empty()) throw std::invalid_argument("exact_match_rate: no sentences");
  size_t exact = 0;
  for (size_t i = 0; i < hypotheses.size(); ++i)
    if (split_on_spaces(hypotheses[i]) == split_on_spaces(references[i])) ++exact;
  return static_cast<double>(exact) / static_cast<double>(hypotheses.size());
}

}  // namespace atencion::examples

// exercises/judge_report.h — what a judge prints when your function is wrong (docs/exercises.md).
//
// Every comparison of tensors in a judge goes through close_to, which on failure says how many
// elements differ, the worst one (its index, your value, the expected one) and, for a small
// tensor, both tensors in full. Messages are cut into lines of at most 70 characters at spaces:
// Catch wraps longer lines at 80 columns and may cut after a '.', in the middle of a number.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "nn/fixture.h"  // testing::matches: the worst element, and Catch's printing of it
#include "tensor/tensor.h"

namespace atencion::judge {

// `text` with its lines broken at spaces so that none is longer than `width` (a word longer
// than that stays whole). Existing line breaks are kept; continuation lines are indented.
inline std::string short_lines(const std::string& text, std::size_t width = 70) {
  std::string out, line;
  std::istringstream paragraphs(text);
  std::string paragraph;
  bool first_paragraph = true;
  while (std::getline(paragraphs, paragraph)) {
    if (!first_paragraph) out += '\n';
    first_paragraph = false;
    std::istringstream words(paragraph);
    std::string word;
    line.clear();
    while (words >> word) {
      if (!line.empty() && line.size() + 1 + word.size() > width) {
        out += line + '\n';
        line = "  ";
      } else if (!line.empty() && line != "  ") {
        line += ' ';
      }
      line += word;
    }
    out += line;
  }
  return out;
}

// The values of a tensor of at most `limit` elements as "{a, b, c}", row-major; "" if larger.
inline std::string small_values(const Tensor& t, std::size_t limit = 24) {
  if (!t.defined() || static_cast<std::size_t>(t.numel()) > limit) return "";
  std::ostringstream text;
  text.precision(6);
  text << '{';
  const std::vector<double> values = t.contiguous().to_vector();
  for (std::size_t i = 0; i < values.size(); ++i) text << (i ? ", " : "") << values[i];
  text << '}';
  return text.str();
}

// `got` equals `expected` within |got − expected| <= atol + rtol·|expected| (shape and dtype
// equal too). Use as CHECK(judge::close_to(yours, expected, rtol, atol)).
inline testing::Closeness close_to(const Tensor& got, const Tensor& expected, double rtol,
                                   double atol) {
  testing::Closeness result = testing::matches(got, expected, rtol, atol);
  if (result.ok) return result;
  std::string message = result.message;
  const std::string got_values = small_values(got), expected_values = small_values(expected);
  if (!got_values.empty() && !expected_values.empty())
    message += "\ngot      " + got_values + "\nexpected " + expected_values;
  result.message = short_lines(message);
  return result;
}

// The same with the tolerances used against PyTorch's fixtures (tests/nn/fixture.h).
inline testing::Closeness close_to(const Tensor& got, const Tensor& expected) {
  return close_to(got, expected, testing::default_rtol(expected.dtype()),
                  testing::default_atol(expected.dtype()));
}

}  // namespace atencion::judge

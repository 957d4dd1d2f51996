// examples/attention_walkthrough/steps_print.cpp — see steps_print.h.
#include "steps_print.h"

#include <algorithm>
#include <cstdio>

namespace walkthrough {
using namespace atencion;

std::string dims(int64_t rows, int64_t columns) {
  return "(" + std::to_string(rows) + " × " + std::to_string(columns) + ")";
}

std::string pad(const std::string& text, std::size_t width) {
  std::size_t characters = 0;
  for (unsigned char c : text) characters += (c & 0xC0) != 0x80;
  return text + std::string(width > characters ? width - characters : 0, ' ');
}

void print_step(const std::string& name, const Tensor& value, const std::string& note) {
  std::printf("  %s %s %s\n", pad(name, 34).c_str(),
              pad(shape_to_string(value.shape()), 16).c_str(), note.c_str());
  Tensor matrix = value;
  while (matrix.dim() > 2) matrix = matrix.select(0, 0);
  const int64_t rows = std::min<int64_t>(matrix.size(0), 2),
                columns = std::min<int64_t>(matrix.size(1), 6);
  for (int64_t r = 0; r < rows; ++r) {
    std::printf("  %36s", r == 0 ? "corner:" : "");
    for (int64_t c = 0; c < columns; ++c) std::printf(" %9.4f", matrix.at({r, c}));
    std::printf("%s\n", matrix.size(1) > columns ? "  …" : "");
  }
}

void print_weights(const Tensor& weights, const Tokens& rows, const Tokens& columns) {
  std::printf("  %10s", "");
  for (const auto& token : columns) std::printf(" %8s", token.c_str());
  std::printf("\n");
  for (int64_t r = 0; r < weights.size(0); ++r) {
    std::printf("  %10s", rows[r].c_str());
    for (int64_t c = 0; c < weights.size(1); ++c) std::printf(" %7.1f%%", 100 * weights.at({r, c}));
    std::printf("\n");
  }
}

void heading(const std::string& title) { std::printf("\n== %s ==\n", title.c_str()); }

}  // namespace walkthrough

// examples/attention_walkthrough/scale_and_overflow.cpp — why attention divides by √d_k and why
// softmax subtracts the row's maximum, in numbers (notebook 004's two warnings).
// Lessons: docs/05-scaled-dot-product-attention.md#why-the-scale-matters-shown,
// docs/04-softmax.md#overflow-and-the-max-trick
#include <cmath>
#include <cstdio>
#include <string>

#include "autograd/ops.h"
#include "lesson_parts.h"
#include "tensor/ops.h"

namespace walkthrough {
using namespace atencion;
namespace {

struct SoftmaxReading {
  double mean_largest_weight;  // the average over rows of the row's largest weight
  double gradient_norm;        // |dL/d(softmax input)| for L = Σ weights ⊙ upstream
};

// softmax(scores, -1) of a [rows, columns] matrix, and the gradient that reaches its input
// from a fixed upstream gradient.
SoftmaxReading read_softmax(const Tensor& scores, const Tensor& upstream) {
  Variable input(scores, true);
  const Variable weights = softmax(input, -1);
  sum(mul(weights, Variable(upstream))).backward();
  double largest = 0;
  for (int64_t r = 0; r < scores.size(0); ++r) {
    double row_largest = 0;
    for (int64_t c = 0; c < scores.size(1); ++c)
      row_largest = std::max(row_largest, weights.value().at({r, c}));
    largest += row_largest;
  }
  return {largest / scores.size(0), std::sqrt(sum(mul(input.grad(), input.grad())).item())};
}

// "inf", "NaN" or the number: printf's spelling of NaN depends on its sign bit.
std::string number(double value, const char* format) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

void show_why_the_scale_matters(Generator& generator, int64_t tokens) {
  std::printf(
      "  queries and keys with N(0, 1) entries, %d tokens; L = Σ weights ⊙ G, G ~ N(0, 1)\n",
      int(tokens));
  std::printf("  %6s %14s | %22s | %22s\n", "", "", "scores / √d_k", "scores, not scaled");
  std::printf("  %6s %14s | %10s %11s | %10s %11s\n", "d_k", "scores", "max weight", "|dL/dS|",
              "max weight", "|dL/dS|");
  for (const int64_t d_k : {16, 96, 768}) {
    const Tensor query = randn({tokens, d_k}, generator), key = randn({tokens, d_k}, generator);
    const Tensor upstream = randn({tokens, tokens}, generator);
    const Tensor scores = matmul(query, key, Trans::No, Trans::Yes);
    const SoftmaxReading scaled =
        read_softmax(div(scores, std::sqrt(static_cast<double>(d_k))), upstream);
    const SoftmaxReading unscaled = read_softmax(scores, upstream);
    std::printf("  %6d %14s | %10.3f %11.4f | %10.3f %11.4f\n", int(query.size(1)),
                shape_to_string(scores.shape()).c_str(), scaled.mean_largest_weight,
                scaled.gradient_norm, unscaled.mean_largest_weight, unscaled.gradient_norm);
  }
}

void show_softmax_overflow(const Variable& x, const Tokens& tokens, int64_t row) {
  NoGradGuard no_grad;
  // One row of x xᵀ, not scaled: |x_i|² on the diagonal is in the thousands.
  const Tensor scores =
      matmul(x.value(), x.value(), Trans::No, Trans::Yes).select(0, 0).select(0, row);
  const Tensor exponentials = exp(scores);                    // naive: exp(1500) = inf in float32
  const Tensor naive = div(exponentials, sum(exponentials));  // inf / inf = NaN, x / inf = 0
  const Tensor with_max_trick = softmax(scores, -1);          // exp(x - max): the largest term is 1
  std::printf("  row \"%s\" of x xᵀ %s (%s), no scale:\n", tokens[row].c_str(),
              shape_to_string(scores.shape()).c_str(), dtype_name(scores.dtype()));
  std::printf("  %10s %10s %12s %12s %12s\n", "key", "score", "exp(score)", "naive", "max trick");
  for (int64_t c = 0; c < scores.size(0); ++c) {
    std::printf("  %10s %10s %12s %12s %11.1f%%\n", tokens[c].c_str(),
                number(scores.at({c}), "%.2f").c_str(),  // e^score can be checked by hand
                number(exponentials.at({c}), "%.3g").c_str(), number(naive.at({c}), "%.4f").c_str(),
                100 * with_max_trick.at({c}));
  }
}

}  // namespace walkthrough

// exercises/token_average/judge.cpp — judges exercise::token_average.
// Lesson: docs/13-data-parallel.md#the-token-count-trap
#include <catch2/catch.hpp>

#include <vector>

#include "exercises/token_average/token_average.h"

using atencion::exercise::token_average;

TEST_CASE("token_average: shares of 1 and 3 tokens by hand", "[exercise]") {
  // Process 0's one token has gradient 4; process 1's three have 0 (their mean is 0).
  // All four tokens: (4 + 0 + 0 + 0) / 4 = 1, not the mean of the means, 2.
  CHECK(token_average({{4.0}, {0.0}}, {1, 3}) == std::vector<double>{1.0});
}

TEST_CASE("token_average: equal shares give the mean of the means", "[exercise]") {
  const std::vector<double> g = token_average({{1.0, -2.0}, {3.0, 6.0}}, {5, 5});
  CHECK(g[0] == Approx(2.0));
  CHECK(g[1] == Approx(2.0));
}

TEST_CASE("token_average: is the gradient of the whole batch's mean loss", "[exercise]") {
  // loss_t = (w·x_t − y_t)², so ∂loss_t/∂w = 2 (w·x_t − y_t) x_t; seven tokens cut into shares
  // of 1, 2 and 4 (a process with a shorter share, as a batch of uneven sentences gives).
  const double w = 0.5;
  const std::vector<double> x{1, -2, 3, 0.5, -1, 2, 4}, y{2, 1, -1, 0, 3, 1, 2};
  const auto gradient_of = [&](size_t begin, size_t end) {  // of the mean loss over the tokens
    double sum = 0;
    for (size_t t = begin; t < end; ++t) sum += 2 * (w * x[t] - y[t]) * x[t];
    return sum / static_cast<double>(end - begin);
  };
  const double whole = gradient_of(0, 7);
  const std::vector<double> g = token_average(
      {{gradient_of(0, 1)}, {gradient_of(1, 3)}, {gradient_of(3, 7)}}, {1, 2, 4});
  CHECK(g[0] == Approx(whole).epsilon(1e-12));
}

TEST_CASE("token_average: a share without tokens counts for nothing, mismatches are refused",
          "[exercise]") {
  CHECK(token_average({{7.0}, {100.0}}, {2, 0}) == std::vector<double>{7.0});
  CHECK_THROWS_AS(token_average({{1.0}, {2.0}}, {1}), std::invalid_argument);
  CHECK_THROWS_AS(token_average({{1.0}, {2.0, 3.0}}, {1, 1}), std::invalid_argument);
  CHECK_THROWS_AS(token_average({{1.0}}, {0}), std::invalid_argument);
}

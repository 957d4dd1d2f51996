// exercises/online_softmax/judge.cpp — judges exercise::online_softmax_update: the row's
// softmax e^(x − m) / l after every block has been folded in must be lesson 04's softmax of the
// whole row (tensor/softmax.cpp), whatever the blocks.
// Lesson: docs/14-flash-attention.md
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "exercises/online_softmax/online_softmax.h"
#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;
using exercise::RunningSoftmax;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Folds `row` in blocks of `block` scores (the last one shorter) and returns the state.
RunningSoftmax fold(const std::vector<double>& row, size_t block) {
  RunningSoftmax state;
  for (size_t start = 0; start < row.size(); start += block) {
    const size_t end = std::min(row.size(), start + block);
    exercise::online_softmax_update(state, std::vector<double>(row.begin() + start,
                                                               row.begin() + end));
  }
  return state;
}

// e^(x_j − m) / l for the whole row, from the folded state.
std::vector<double> weights(const std::vector<double>& row, const RunningSoftmax& state) {
  std::vector<double> result;
  for (const double x : row) result.push_back(state.l > 0 ? std::exp(x - state.m) / state.l : 0);
  return result;
}

// Lesson 04's softmax of the whole row at once.
std::vector<double> softmax_of(const std::vector<double>& row) {
  const Tensor scores =
      Tensor::from_vector(row, {1, static_cast<int64_t>(row.size())}, DType::Float64);
  return softmax(scores, -1).to_vector();
}

}  // namespace

TEST_CASE("online_softmax: one block is the max and the sum by hand", "[exercise]") {
  const RunningSoftmax state = fold({0, 1, 2}, 3);
  CHECK(state.m == 2.0);
  CHECK(state.l == Approx(std::exp(-2.0) + std::exp(-1.0) + 1.0).epsilon(1e-14));
}

TEST_CASE("online_softmax: a larger score in a later block rescales the sum", "[exercise]") {
  // Blocks {0, 1} then {5}: after the first, l = e^-1 + 1 (m = 1); the second must turn it into
  // e^-5 + e^-4 + 1 (m = 5), not keep e^-1 + 1 beside the new term.
  const RunningSoftmax state = fold({0, 1, 5}, 2);
  CHECK(state.m == 5.0);
  CHECK(state.l == Approx(std::exp(-5.0) + std::exp(-4.0) + 1.0).epsilon(1e-14));
}

TEST_CASE("online_softmax: equals lesson 04's softmax for any block size", "[exercise]") {
  Generator generator(14);
  const std::vector<double> row = mul(randn({50}, generator, DType::Float64), 6.0).to_vector();
  const std::vector<double> expected = softmax_of(row);
  for (const size_t block : {1, 2, 7, 16, 50, 64}) {
    INFO("blocks of " << block);
    const std::vector<double> got = weights(row, fold(row, block));
    for (size_t j = 0; j < row.size(); ++j) CHECK(got[j] == Approx(expected[j]).margin(1e-15).epsilon(1e-12));
  }
}

TEST_CASE("online_softmax: scores of 1000 do not overflow", "[exercise]") {
  const std::vector<double> row = {1000, 1001, 1002, 999};
  const std::vector<double> expected = softmax_of(row), got = weights(row, fold(row, 1));
  for (size_t j = 0; j < row.size(); ++j) CHECK(got[j] == Approx(expected[j]).epsilon(1e-12));
}

TEST_CASE("online_softmax: masked scores add nothing, a fully masked row keeps m = -inf, l = 0",
          "[exercise]") {
  // A block of only −∞ first (a tile of keys the query may not see), then the visible ones.
  const std::vector<double> row = {-kInf, -kInf, 3, -kInf, 1};
  const RunningSoftmax state = fold(row, 2);
  CHECK(state.m == 3.0);
  CHECK(state.l == Approx(1.0 + std::exp(-2.0)).epsilon(1e-14));
  const std::vector<double> expected = softmax_of(row), got = weights(row, state);
  for (size_t j = 0; j < row.size(); ++j) CHECK(got[j] == Approx(expected[j]).margin(1e-15));
  const RunningSoftmax hidden = fold({-kInf, -kInf, -kInf}, 2);
  CHECK(hidden.m == -kInf);
  CHECK(hidden.l == 0.0);
}

// tensor/detail/row_lanes.h — the max, the sum and the dot product of contiguous rows, written for the
// vectoriser: LANES independent lanes walk the row and are combined at the end in a fixed
// order, so the result does not depend on threads (and, with -ffp-contract=off, on the CPU).
// Used by the softmax rows and their backward (tensor/softmax.cpp) and the cross-entropy rows
// (nn/detail/cross_entropy_rows.cpp). Lesson: docs/01-tensor.md#softmax
#pragma once

#include <cstdint>
#include <limits>

namespace atencion::detail {

// max_i row[i], NaN if the row holds one (as torch); -inf for an empty row.
template <int64_t LANES, typename T>
[[gnu::always_inline]] inline T row_max(const T* row, int64_t length) {
  auto larger = [](T v, T max) { return v > max || v != v ? v : max; };
  const int64_t whole = length - length % LANES;
  T lane_max[LANES];
  for (int64_t k = 0; k < LANES; ++k) lane_max[k] = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < whole; i += LANES)
    for (int64_t k = 0; k < LANES; ++k) lane_max[k] = larger(row[i + k], lane_max[k]);
  T max = -std::numeric_limits<T>::infinity();
  for (int64_t k = 0; k < LANES; ++k) max = larger(lane_max[k], max);
  for (int64_t i = whole; i < length; ++i) max = larger(row[i], max);
  return max;
}

// Σ_i row[i] in double.
template <int64_t LANES, typename T>
[[gnu::always_inline]] inline double row_sum(const T* row, int64_t length) {
  const int64_t whole = length - length % LANES;
  double lane_sum[LANES] = {};
  for (int64_t i = 0; i < whole; i += LANES)
    for (int64_t k = 0; k < LANES; ++k) lane_sum[k] += static_cast<double>(row[i + k]);
  double total = 0;
  for (int64_t k = 0; k < LANES; ++k) total += lane_sum[k];
  for (int64_t i = whole; i < length; ++i) total += static_cast<double>(row[i]);
  return total;
}

// Σ_i a[i] · b[i] in double, each product rounded in T first (as sum(mul(a, b)) would).
template <int64_t LANES, typename T>
[[gnu::always_inline]] inline double row_dot(const T* a, const T* b, int64_t length) {
  const int64_t whole = length - length % LANES;
  double lane_sum[LANES] = {};
  for (int64_t i = 0; i < whole; i += LANES)
    for (int64_t k = 0; k < LANES; ++k) lane_sum[k] += static_cast<double>(a[i + k] * b[i + k]);
  double total = 0;
  for (int64_t k = 0; k < LANES; ++k) total += lane_sum[k];
  for (int64_t i = whole; i < length; ++i) total += static_cast<double>(a[i] * b[i]);
  return total;
}

}  // namespace atencion::detail

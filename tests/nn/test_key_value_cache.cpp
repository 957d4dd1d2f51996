// tests/nn/test_key_value_cache.cpp — nn/key_value_cache.cpp: extend writes the new positions in
// place and shows all of them, reorder moves rows with their keys and values, bad calls get
// one-line errors; and MultiHeadAttention::forward with a cache, fed one position at a time,
// gives what it gives without one over the whole sequence under the causal mask.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "autograd/ops.h"
#include "nn/key_value_cache.h"
#include "nn/masks.h"
#include "nn/multi_head_attention.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

namespace {

// [rows, heads, n, head_dim] of distinct values from `seed`.
Variable random_heads(int64_t rows, int64_t heads, int64_t n, int64_t head_dim, uint64_t seed) {
  Generator generator(seed);
  return Variable(randn({rows, heads, n, head_dim}, generator));
}

bool equal(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.to_vector() == b.to_vector();
}

}  // namespace

TEST_CASE("KeyValueCache::extend writes the new positions after the old ones, in place",
          "[key_value_cache]") {
  KeyValueCache cache(2, 3, 2, 5, 4);
  CHECK(cache.rows() == 2);
  CHECK(cache.max_rows() == 3);
  CHECK(cache.capacity() == 5);
  CHECK(cache.length() == 0);
  const Variable keys_a = random_heads(2, 2, 2, 4, 1), values_a = random_heads(2, 2, 2, 4, 2);
  const Variable keys_b = random_heads(2, 2, 1, 4, 3), values_b = random_heads(2, 2, 1, 4, 4);
  const void* buffer = cache.keys().storage()->data();
  auto [keys, values] = cache.extend(keys_a, values_a);
  CHECK(equal(keys.value(), keys_a.value()));
  std::tie(keys, values) = cache.extend(keys_b, values_b);
  // K = [K_a; K_b] along the positions, a view of the same buffer.
  CHECK(cache.length() == 3);
  CHECK(equal(keys.value(), cat({keys_a.value(), keys_b.value()}, 2)));
  CHECK(equal(values.value(), cat({values_a.value(), values_b.value()}, 2)));
  CHECK(equal(cache.keys(), keys.value()));
  CHECK(keys.value().storage()->data() == buffer);
  // No new position: the same view again.
  std::tie(keys, values) = cache.extend(random_heads(2, 2, 0, 4, 5), random_heads(2, 2, 0, 4, 6));
  CHECK(cache.length() == 3);
  CHECK(equal(values.value(), cache.values()));
}

TEST_CASE("KeyValueCache::reorder moves each row with its keys and values", "[key_value_cache]") {
  KeyValueCache cache(2, 4, 2, 5, 3);
  const Variable keys = random_heads(2, 2, 2, 3, 7), values = random_heads(2, 2, 2, 3, 8);
  cache.extend(keys, values);
  const std::vector<int64_t> parents = {1, 0, 1};
  cache.reorder(parents);
  const Tensor ids = Tensor::from_ids(parents, {3});
  CHECK(cache.rows() == 3);
  CHECK(equal(cache.keys(), index_select(keys.value(), 0, ids)));
  CHECK(equal(cache.values(), index_select(values.value(), 0, ids)));
  // Positions added after the reorder go to the new rows.
  const Variable more_keys = random_heads(3, 2, 1, 3, 9);
  const Variable more_values = random_heads(3, 2, 1, 3, 10);
  cache.extend(more_keys, more_values);
  CHECK(equal(cache.keys(), cat({index_select(keys.value(), 0, ids), more_keys.value()}, 2)));
  CHECK_THROWS_WITH(cache.reorder({0, 3}),
                    Contains("KeyValueCache::reorder: row 3 outside the cache's 3 rows"));
  CHECK_THROWS_WITH(cache.reorder({0, 1, 2, 0, 1}),
                    Contains("KeyValueCache::reorder: 5 rows do not fit the cache's 4"));
}

TEST_CASE("KeyValueCache: bad calls give one-line errors", "[key_value_cache]") {
  KeyValueCache cache(1, 1, 2, 2, 4);
  cache.extend(random_heads(1, 2, 2, 4, 1), random_heads(1, 2, 2, 4, 2));
  CHECK_THROWS_WITH(cache.extend(random_heads(1, 2, 1, 4, 3), random_heads(1, 2, 1, 4, 4)),
                    Contains("KeyValueCache::extend: keys [1, 2, 1, 4], values [1, 2, 1, 4] at "
                             "position 2 of a cache of 1 rows and 2 positions"));
  KeyValueCache empty(1, 1, 2, 3, 4);
  CHECK_THROWS_WITH(empty.extend(random_heads(1, 3, 1, 4, 3), random_heads(1, 3, 1, 4, 4)),
                    Contains("expected [rows, heads, n, head_dim] = [1, 2, 1, 4]"));
  CHECK_THROWS_WITH(empty.extend(random_heads(1, 2, 1, 4, 3).set_requires_grad(true),
                                 random_heads(1, 2, 1, 4, 4)),
                    Contains("the cache is for inference"));
  CHECK_THROWS_WITH(KeyValueCache(3, 2, 2, 3, 4), Contains("KeyValueCache: rows 3, max_rows 2"));
}

TEST_CASE("KeyValueCache: rows of their own lengths join, grow from their own ends and leave",
          "[key_value_cache]") {
  KeyValueCache cache(0, 3, 2, 5, 4, DType::Float32, /*zeroed=*/true);
  const Variable first = random_heads(2, 2, 3, 4, 11), second = random_heads(1, 2, 2, 4, 12);
  cache.append_rows(first.value(), first.value(), {3, 1});  // row 1 keeps 1 of its 3
  CHECK(cache.row_lengths() == std::vector<int64_t>{3, 1});
  CHECK(cache.ragged());
  CHECK(cache.length() == 3);
  const Variable step = random_heads(2, 2, 1, 4, 13);
  auto [keys, values] = cache.extend(step, step);
  CHECK(cache.row_lengths() == std::vector<int64_t>{4, 2});
  // Row 0: its 3, then the step's at 3; row 1: its 1, the step's at 1, then zeros (never
  // written) up to the longest row.
  CHECK(equal(keys.value().narrow(0, 0, 1),
              cat({first.value().narrow(0, 0, 1), step.value().narrow(0, 0, 1)}, 2)));
  CHECK(equal(keys.value().narrow(0, 1, 1).narrow(2, 0, 2),
              cat({first.value().narrow(0, 1, 1).narrow(2, 0, 1), step.value().narrow(0, 1, 1)},
                  2)));
  CHECK(equal(keys.value().narrow(0, 1, 1).narrow(2, 2, 2), Tensor::zeros({1, 2, 2, 4})));
  cache.append_rows(second.value(), second.value(), {2});
  cache.remove_row(0);  // the last row (second) moves into row 0
  CHECK(cache.row_lengths() == std::vector<int64_t>{2, 2});
  CHECK(!cache.ragged());
  CHECK(equal(cache.keys().narrow(0, 0, 1), second.value()));
  CHECK_THROWS_WITH(cache.remove_row(2),
                    Contains("KeyValueCache::remove_row: row 2 outside the cache's 2 rows"));
  CHECK_THROWS_WITH(cache.append_rows(second.value(), second.value(), {3}),
                    Contains("KeyValueCache::append_rows: keys [1, 2, 2, 4], values [1, 2, 2, 4] "
                             "with 1 lengths to a cache of 2 rows (max_rows 3) and 5 positions"));
}

TEST_CASE("MultiHeadAttention with a cache, one position at a time, equals the causal forward",
          "[key_value_cache]") {
  NoGradGuard no_grad;
  Generator generator(31);
  MultiHeadAttention attention(8, 2, generator);
  const Tensor x = randn({3, 5, 8}, generator);
  const Tensor whole =
      attention(Variable(x), Variable(x), Variable(x), causal_mask(5)).value();
  KeyValueCache cache(3, 3, 2, 5, 4);
  for (int64_t t = 0; t < 5; ++t) {
    INFO("position " << t);
    const Variable x_t(x.narrow(1, t, 1));
    // No mask: the cache holds positions 0..t, all of which position t may see.
    const Tensor step = attention(x_t, x_t, x_t, Tensor(), &cache).value();
    CHECK(equal(step, whole.narrow(1, t, 1)));
  }
  CHECK(cache.length() == 5);
}

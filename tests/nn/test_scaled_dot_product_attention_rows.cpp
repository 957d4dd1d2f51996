// tests/nn/test_scaled_dot_product_attention_rows.cpp — the step-by-step path in inference runs
// a batch's rows on the threads (nn/scaled_dot_product_attention.cpp, forward_rows): its output
// and the observer's weights have the same bits at 1 and 2 threads, as the path with a graph
// (the whole batch in one call of each kernel) and as each row alone; masks with a batch dim of
// their own and broadcast ones alike.
#include <catch2/catch.hpp>

#include <vector>

#include "autograd/variable.h"
#include "nn/attention_observer.h"
#include "nn/masks.h"
#include "nn/scaled_dot_product_attention.h"
#include "tensor/random.h"
#include "tensor/threads.h"

using namespace atencion;
using namespace atencion::nn;

namespace {

struct Attended {
  std::vector<double> output, weights;
};

// The attention of query, key, value (and mask) with an observer of `observed` rows; with a
// graph when `graph` (the inputs require grad), else under NoGradGuard.
Attended attend(ScaledDotProductAttention& attention, const Tensor& query, const Tensor& key,
                const Tensor& value, const Tensor& mask, const std::vector<int64_t>& observed,
                bool graph) {
  AttentionObserver observer(observed);
  Variable output;
  if (graph) {
    output = attention(Variable(query, true), Variable(key, true), Variable(value, true), mask,
                       &observer);
    CHECK(output.requires_grad());
  } else {
    NoGradGuard no_grad;
    output = attention(Variable(query), Variable(key), Variable(value), mask, &observer);
  }
  return {output.value().to_vector(), observer.weights(attention).to_vector()};
}

}  // namespace

TEST_CASE("ScaledDotProductAttention: a batch's rows on the threads give the same bits",
          "[scaled_dot_product_attention][attention_rows]") {
  // 48 rows of 4 heads, each query over its own keys: a decoding step (one query) with a
  // padding mask per row, and 3 queries with one causal mask broadcast over the rows.
  Generator generator(31);
  const int64_t rows = 48, heads = 4, keys = 24, d = 16;
  std::vector<int64_t> lengths;
  for (int64_t r = 0; r < rows; ++r) lengths.push_back((r * 7) % (keys + 1));  // row 0 sees none
  for (const int64_t queries : {int64_t{1}, int64_t{3}}) {
    INFO(queries << " queries");
    const Tensor query = randn({rows, heads, queries, d}, generator);
    const Tensor key = randn({rows, heads, keys, d}, generator);
    const Tensor value = randn({rows, heads, keys, d}, generator);
    const Tensor mask = queries == 1 ? padding_mask(lengths, keys)
                                     : causal_mask_after(keys - queries, queries);
    ScaledDotProductAttention attention;
    attention.eval();
    const std::vector<int64_t> observed = {5, 0, 47};
    const int saved = num_threads();
    set_num_threads(1);
    const Attended one = attend(attention, query, key, value, mask, observed, false);
    set_num_threads(2);
    const Attended two = attend(attention, query, key, value, mask, observed, false);
    const Attended graph = attend(attention, query, key, value, mask, observed, true);
    set_num_threads(saved);
    CHECK(one.output == two.output);
    CHECK(one.weights == two.weights);
    CHECK(one.output == graph.output);
    CHECK(one.weights == graph.weights);
    // Row 5 alone (a batch of one does not split) has row 5's bits.
    const auto row = [](const Tensor& x) {
      return x.dim() == 4 && x.size(0) > 1 ? x.narrow(0, 5, 1) : x;
    };
    const Attended alone =
        attend(attention, row(query), row(key), row(value), row(mask), {}, false);
    const auto per_row = static_cast<size_t>(heads * queries * d);
    CHECK(alone.output == std::vector<double>(one.output.begin() + 5 * per_row,
                                              one.output.begin() + 6 * per_row));
    CHECK(alone.weights ==
          std::vector<double>(one.weights.begin(),
                              one.weights.begin() + static_cast<int64_t>(alone.weights.size())));
  }
}

// examples/attention_walkthrough/notebook_004_steps.cpp — notebook 004's SelfAttentionWithTricks
// narrated: project, split, scale queries and keys by k^¼ each, scores, softmax, weighted sum,
// unify heads. Lesson: docs/09-wide-attention.md
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "autograd/ops.h"
#include "lesson_parts.h"
#include "nn/heads.h"
#include "tensor/ops.h"

namespace walkthrough {
using namespace atencion;

void narrate_wide_self_attention(nn::WideSelfAttention& attention, const Variable& x) {
  NoGradGuard no_grad;
  const Tensor projected_queries = (*attention.toqueries)(x).value();
  const int64_t k = x.size(2), heads = projected_queries.size(2) / k;
  print_step("toqueries: x W_q (no bias)", projected_queries,
             std::to_string(heads) + " heads × k = " + std::to_string(k));
  const Tensor projected_keys = (*attention.tokeys)(x).value();
  print_step("tokeys: x W_k (no bias)", projected_keys);
  const Tensor projected_values = (*attention.tovalues)(x).value();
  print_step("tovalues: x W_v (no bias)", projected_values);

  Tensor queries = nn::split_heads(Variable(projected_queries), heads).value();
  print_step("split: every head sees all k", queries);
  Tensor keys = nn::split_heads(Variable(projected_keys), heads).value();
  const Tensor values = nn::split_heads(Variable(projected_values), heads).value();

  // (q / k^¼)·(key / k^¼) = q·key / √k: the same scale as docs/05, split over both factors.
  const double fourth_root_of_k = std::pow(static_cast<double>(k), 0.25);
  char note[64];
  std::snprintf(note, sizeof note, "k^¼ = %.4f", fourth_root_of_k);
  queries = div(queries, fourth_root_of_k);
  print_step("queries / k^¼", queries, note);
  keys = div(keys, fourth_root_of_k);
  print_step("keys / k^¼", keys);

  const Tensor scores = matmul(queries, keys, Trans::No, Trans::Yes);
  print_step("scores: queries keysᵀ", scores,
             dims(queries.size(2), k) + "·" + dims(k, keys.size(2)) + " per head");
  const Tensor weights = softmax(scores, -1);
  print_step("softmax(scores, dim=-1)", weights);
  const Tensor head_outputs = matmul(weights, values);
  print_step("weights · values", head_outputs);
  const Tensor concatenated = nn::merge_heads(Variable(head_outputs)).value();
  print_step("heads side by side", concatenated);
  const Tensor output = (*attention.unifyheads)(Variable(concatenated)).value();
  print_step("unifyheads: Linear(heads·k, k)", output);

  const Tensor from_module = attention(x).value();
  const double difference = max(abs(sub(from_module, output))).item();
  std::printf("  WideSelfAttention::forward gives the identical output (max |difference| %g)\n",
              difference);
  if (difference != 0) throw std::runtime_error("the narrated wide heads and the module differ");
}

void print_diagonal(const Tensor& weights, const Tokens& tokens) {
  std::printf("  each token's weight on itself (the diagonal):");
  for (int64_t i = 0; i < weights.size(0); ++i) {
    if (i % 6 == 0) std::printf("\n   ");
    std::printf(" %8s %5.1f%%", tokens[i].c_str(), 100 * weights.at({i, i}));
  }
  std::printf("\n");
}

}  // namespace walkthrough

// examples/attention_walkthrough/notebook_002_split.cpp — two ways to cut d features into h
// heads, printed on a numbered input: our block split_heads (the paper's, notebook 003's and
// torch's) and notebook 002's split(), which gives strided heads.
// Lesson: docs/06-multi-head-attention.md#split-and-concat
#include <cstdio>
#include <string>

#include "autograd/ops.h"
#include "lesson_parts.h"
#include "nn/heads.h"

namespace walkthrough {
using namespace atencion;
namespace {

// The features of x[.., token, ..] along the last dim, as integers.
std::string row_of(const Tensor& row) {
  std::string text;
  for (int64_t i = 0; i < row.size(0); ++i) {
    text += ' ';
    text += std::to_string(static_cast<int>(row.at({i})));
  }
  return text;
}

}  // namespace

void show_block_and_strided_split() {
  const int64_t tokens = 2, d = 8, heads = 2;
  // x[0, t, f] = 10·t + f: each number says which token and which feature it is.
  const Tensor x = add(Tensor::arange(0, d).reshape({1, 1, d}),
                       mul(Tensor::arange(0, tokens).reshape({1, tokens, 1}), 10.0));
  print_step("x = 10·token + feature", x);

  const Tensor block = nn::split_heads(Variable(x), heads).value();
  std::printf("  split_heads(x, %d) %s: head i gets features [i·d/h, (i+1)·d/h)\n", int(heads),
              shape_to_string(block.shape()).c_str());
  for (int64_t h = 0; h < block.size(1); ++h)
    for (int64_t t = 0; t < block.size(2); ++t)
      std::printf("    head %d, token %d:%s\n", int(h), int(t),
                  row_of(block.select(0, 0).select(0, h).select(0, t)).c_str());

  // Notebook 002: sequence.view(batch, seq, d // h, h).transpose(1, 2).
  const Tensor strided = x.view({1, tokens, d / heads, heads}).transpose(1, 2).contiguous();
  std::printf("  notebook 002's split(x, %d) %s, read with the last axis as the head:\n",
              int(heads), shape_to_string(strided.shape()).c_str());
  for (int64_t h = 0; h < strided.size(3); ++h)
    for (int64_t t = 0; t < strided.size(2); ++t)
      std::printf("    head %d, token %d:%s\n", int(h), int(t),
                  row_of(strided.select(0, 0).select(2, h).select(1, t)).c_str());
  std::printf("  read with axis 1 as the head, as attention would: %d \"heads\" of %d features\n",
              int(strided.size(1)), int(strided.size(3)));
}

}  // namespace walkthrough

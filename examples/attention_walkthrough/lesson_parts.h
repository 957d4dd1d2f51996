// examples/attention_walkthrough/lesson_parts.h — the walk-through's parts that follow
// notebook 002 (how to split into heads) and notebook 004 (why scale, the wide heads step by
// step). main.cpp calls them in order; each prints what its lesson quotes.
#pragma once

#include <filesystem>
#include <string>

#include "autograd/variable.h"
#include "nn/wide_self_attention.h"
#include "steps_print.h"
#include "tensor/random.h"

namespace walkthrough {

// The diagonal of a [tokens, tokens] weight matrix, as percentages (docs/03-linear.md).
void print_diagonal(const atencion::Tensor& weights, const Tokens& tokens);

// Notebook 004's SelfAttentionWithTricks one line at a time, then the module: the two must be
// identical (docs/09-wide-attention.md).
void narrate_wide_self_attention(atencion::nn::WideSelfAttention& attention,
                                 const atencion::Variable& x);

// Notebook 002's strided split next to our block split_heads on a small numbered input
// (docs/06-multi-head-attention.md#split-and-concat).
void show_block_and_strided_split();

// Softmax of random scores with and without 1/√d_k: the largest weight and the gradient's norm
// (docs/05-scaled-dot-product-attention.md#why-the-scale-matters-shown).
void show_why_the_scale_matters(atencion::Generator& generator, int64_t tokens);

// One row of x xᵀ through a naive softmax (exp overflows: inf, then NaN) and through ours
// (the max trick), docs/04-softmax.md#overflow-and-the-max-trick.
void show_softmax_overflow(const atencion::Variable& x, const Tokens& tokens, int64_t row);

// Notebook 003 on BERT's own weights: with `bert_dir`, BERT's WordPiece tokens and embeddings of
// the sentence, the random 8-head attention on them beside BERT's own first layer (SVGs in
// `out`); without, what the other parts used instead (docs/16-bert.md).
void show_bert_weights(const std::filesystem::path& out, const std::string& bert_dir);

}  // namespace walkthrough

// nn/key_value_cache.h — one attention's keys and values, kept between calls while decoding
// one position at a time, in buffers allocated once.
// Lesson: docs/12-translation.md#the-key-value-cache
//
// MultiHeadAttention::forward(query, key, value, mask, &cache) attends to every position the
// cache holds: step t writes its own k_t, v_t after the t earlier ones and reads
//   K = [k_0; …; k_t]   V = [v_0; …; v_t]      [rows, heads, t + 1, head_dim], views
// The buffers are [max_rows, heads, capacity, head_dim], made by the constructor; a step writes
// only its new positions (no copy of the earlier ones, as a concatenation would make every step:
// O(T²) over a sentence). Beam search reorders its hypotheses after every step: reorder(parents)
// gathers the filled positions of the kept rows into a second buffer of the same size and swaps
// the two. Nothing is allocated after the constructor.
//
// Rows at different lengths (continuous batching, docs/17-serving.md#under-load): a server adds
// rows while others decode (append_rows) and drops each as it ends (remove_row), so row r holds
// its own length_r positions. extend() then writes row r's new positions at length_r, and the
// views span the longest row: the positions past a row's own length are not its keys, and the
// caller masks them (decode_step, nn/decoder_cache.h). They hold zeros or an earlier row's finite
// numbers (the buffers of such a cache are zeroed once: `zeroed`), so their weight 0 times them
// adds exactly 0, and a row's numbers are those it gets alone.
//
// Inference only: the keys and values enter the cache as plain numbers (no graph), so extend()
// refuses those that require grad (run under NoGradGuard).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "autograd/variable.h"

namespace atencion::nn {

class KeyValueCache {
 public:
  KeyValueCache() = default;  // holds nothing (capacity 0)
  // Room for `capacity` positions of up to `max_rows` rows; starts with `rows` rows and no
  // position. Both buffers (and their spares) are allocated here, uninitialised unless `zeroed`
  // (a cache whose rows will have different lengths).
  KeyValueCache(int64_t rows, int64_t max_rows, int64_t heads, int64_t capacity, int64_t head_dim,
                DType dtype = DType::Float32, bool zeroed = false);

  // Writes `keys`, `values` [rows, heads, n, head_dim] at positions [length_r, length_r + n) of
  // each row r (n may be 0) and returns the keys and values of all positions so far,
  // [rows, heads, length(), head_dim], views of the buffers. Throws, naming the shapes, when
  // they do not match the cache or pass its capacity.
  std::pair<Variable, Variable> extend(const Variable& keys, const Variable& values);

  // The keys and values of the positions so far, [rows, heads, length(), head_dim] (views).
  Tensor keys() const;
  Tensor values() const;

  // Adds keys.size(0) rows after the others: new row i holds positions [0, lengths[i]) of
  // keys[i], values[i] ([n, heads, S, head_dim] with S >= every lengths[i]; S = 0 and lengths
  // 0 for rows that start empty). Throws when they do not fit max_rows or the capacity.
  void append_rows(const Tensor& keys, const Tensor& values, const std::vector<int64_t>& lengths);
  // Drops row `row`: the last row moves into its place (one row's copy, not a gather of all).
  void remove_row(int64_t row);

  // Row i becomes row parents[i] (repeats allowed, e.g. one hypothesis extended twice; the
  // number of rows may change, up to max_rows). Views taken before stay valid until the next
  // reorder.
  void reorder(const std::vector<int64_t>& parents);

  int64_t rows() const { return rows_; }
  int64_t length() const { return length_; }  // the longest row's length
  const std::vector<int64_t>& row_lengths() const { return lengths_; }
  bool ragged() const;  // rows of different lengths
  int64_t capacity() const { return keys_.defined() ? keys_.size(2) : 0; }
  int64_t max_rows() const { return keys_.defined() ? keys_.size(0) : 0; }

 private:
  void set_longest();                         // length_ := the longest row's length
  int64_t longest_after(int64_t added) const;  // the longest row after `added` more positions

  Tensor keys_, values_;              // [max_rows, heads, capacity, head_dim]
  Tensor spare_keys_, spare_values_;  // the same size: where reorder gathers
  int64_t rows_ = 0;
  int64_t length_ = 0;
  std::vector<int64_t> lengths_;  // each row's positions
};

}  // namespace atencion::nn

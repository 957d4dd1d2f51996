// nn/key_value_cache.cpp — buffers written in place; see key_value_cache.h.
// Lesson: docs/12-translation.md#the-key-value-cache
#include "nn/key_value_cache.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "tensor/threads.h"

namespace atencion::nn {
namespace {

// Row i of `to` := row parents[i] of `from`, positions [0, length) of each head: one copy of
// length · head_dim elements per row and head (both buffers [max_rows, heads, capacity,
// head_dim], contiguous, of the same size).
void gather_rows(const Tensor& from, Tensor& to, const std::vector<int64_t>& parents,
                 int64_t length) {
  const int64_t heads = from.size(1), capacity = from.size(2), head_dim = from.size(3);
  const std::size_t element = dtype_size(from.dtype());
  const std::size_t slot = capacity * head_dim * element;  // one row's one head
  const std::size_t filled = length * head_dim * element;
  const char* source = static_cast<const char*>(from.storage()->data());
  char* target = static_cast<char*>(to.storage()->data());
  const int64_t rows = static_cast<int64_t>(parents.size());
  auto copy_row = [&](int64_t row) {
    for (int64_t head = 0; head < heads; ++head)
      std::memcpy(target + (row * heads + head) * slot,
                  source + (parents[row] * heads + head) * slot, filled);
  };
  // The rows are shared by the threads (the bytes are the same at any count).
  parallel_for(rows, heads * length * head_dim, copy_row);
}

}  // namespace

KeyValueCache::KeyValueCache(int64_t rows, int64_t max_rows, int64_t heads, int64_t capacity,
                             int64_t head_dim, DType dtype, bool zeroed)
    : rows_(rows), lengths_(rows > 0 ? rows : 0, 0) {
  if (rows < 0 || max_rows < rows || heads < 1 || capacity < 0 || head_dim < 1)
    throw std::invalid_argument("KeyValueCache: rows " + std::to_string(rows) + ", max_rows " +
                                std::to_string(max_rows) + ", heads " + std::to_string(heads) +
                                ", capacity " + std::to_string(capacity) + ", head_dim " +
                                std::to_string(head_dim) +
                                ": expected 0 <= rows <= max_rows and heads, head_dim >= 1");
  const Shape shape{max_rows, heads, capacity, head_dim};
  keys_ = Tensor::uninitialized(shape, dtype);
  values_ = Tensor::uninitialized(shape, dtype);
  spare_keys_ = Tensor::uninitialized(shape, dtype);
  spare_values_ = Tensor::uninitialized(shape, dtype);
  if (zeroed)
    for (Tensor* buffer : {&keys_, &values_, &spare_keys_, &spare_values_}) buffer->fill_(0.0);
}

bool KeyValueCache::ragged() const {
  for (int64_t length : lengths_)
    if (length != length_) return true;
  return false;
}

void KeyValueCache::set_longest() {
  length_ = 0;
  for (int64_t length : lengths_) length_ = std::max(length_, length);
}

Tensor KeyValueCache::keys() const { return keys_.narrow(0, 0, rows_).narrow(2, 0, length_); }

Tensor KeyValueCache::values() const {
  return values_.narrow(0, 0, rows_).narrow(2, 0, length_);
}

std::pair<Variable, Variable> KeyValueCache::extend(const Variable& keys, const Variable& values) {
  const int64_t added = keys.dim() == 4 ? keys.size(2) : 0;
  const Shape expected{rows_, keys_.defined() ? keys_.size(1) : 0, added,
                       keys_.defined() ? keys_.size(3) : 0};
  if (!keys_.defined() || keys.shape() != expected || values.shape() != expected ||
      keys.dtype() != keys_.dtype() || values.dtype() != keys_.dtype() ||
      longest_after(added) > capacity())
    throw std::invalid_argument(
        "KeyValueCache::extend: keys " + shape_to_string(keys.shape()) + ", values " +
        shape_to_string(values.shape()) + " at position " + std::to_string(length_) +
        " of a cache of " + std::to_string(rows_) + " rows and " + std::to_string(capacity()) +
        " positions: expected [rows, heads, n, head_dim] = " + shape_to_string(expected) +
        ", of its dtype, within its capacity");
  if (keys.requires_grad() || values.requires_grad())
    throw std::logic_error(
        "KeyValueCache::extend: keys or values require grad; the cache is for inference "
        "(decode under NoGradGuard)");
  if (!ragged()) {  // positions [length, length + n) of the rows in use: written in place
    keys_.narrow(0, 0, rows_).narrow(2, length_, added).copy_(keys.value());
    values_.narrow(0, 0, rows_).narrow(2, length_, added).copy_(values.value());
  } else {  // row r's at [length_r, length_r + n)
    for (int64_t row = 0; row < rows_; ++row) {
      keys_.narrow(0, row, 1).narrow(2, lengths_[row], added).copy_(keys.value().narrow(0, row, 1));
      values_.narrow(0, row, 1)
          .narrow(2, lengths_[row], added)
          .copy_(values.value().narrow(0, row, 1));
    }
  }
  for (int64_t& length : lengths_) length += added;
  set_longest();
  return {Variable(this->keys()), Variable(this->values())};
}

void KeyValueCache::reorder(const std::vector<int64_t>& parents) {
  if (static_cast<int64_t>(parents.size()) > max_rows())
    throw std::invalid_argument("KeyValueCache::reorder: " + std::to_string(parents.size()) +
                                " rows do not fit the cache's " + std::to_string(max_rows()) +
                                " (max_rows)");
  for (int64_t parent : parents)
    if (parent < 0 || parent >= rows_)
      throw std::out_of_range("KeyValueCache::reorder: row " + std::to_string(parent) +
                              " outside the cache's " + std::to_string(rows_) + " rows");
  gather_rows(keys_, spare_keys_, parents, length_);
  gather_rows(values_, spare_values_, parents, length_);
  std::swap(keys_, spare_keys_);
  std::swap(values_, spare_values_);
  std::vector<int64_t> lengths;
  for (int64_t parent : parents) lengths.push_back(lengths_[parent]);
  lengths_ = std::move(lengths);
  rows_ = static_cast<int64_t>(parents.size());
  set_longest();
}

int64_t KeyValueCache::longest_after(int64_t added) const {
  int64_t longest = 0;
  for (int64_t length : lengths_) longest = std::max(longest, length + added);
  return longest;
}

void KeyValueCache::append_rows(const Tensor& keys, const Tensor& values,
                                const std::vector<int64_t>& lengths) {
  const int64_t added = keys.dim() == 4 ? keys.size(0) : -1;
  bool fits = keys_.defined() && added >= 0 && values.shape() == keys.shape() &&
              keys.size(1) == keys_.size(1) && keys.size(3) == keys_.size(3) &&
              keys.dtype() == keys_.dtype() && values.dtype() == keys_.dtype() &&
              static_cast<int64_t>(lengths.size()) == added && rows_ + added <= max_rows();
  for (int64_t length : lengths)
    fits = fits && length >= 0 && length <= keys.size(2) && length <= capacity();
  if (!fits)
    throw std::invalid_argument(
        "KeyValueCache::append_rows: keys " + shape_to_string(keys.shape()) + ", values " +
        shape_to_string(values.shape()) + " with " + std::to_string(lengths.size()) +
        " lengths to a cache of " + std::to_string(rows_) + " rows (max_rows " +
        std::to_string(max_rows()) + ") and " + std::to_string(capacity()) +
        " positions: expected [n, heads, S, head_dim] of its dtype, one length <= S each");
  for (int64_t i = 0; i < added; ++i) {
    keys_.narrow(0, rows_ + i, 1).narrow(2, 0, lengths[i])
        .copy_(keys.narrow(0, i, 1).narrow(2, 0, lengths[i]));
    values_.narrow(0, rows_ + i, 1).narrow(2, 0, lengths[i])
        .copy_(values.narrow(0, i, 1).narrow(2, 0, lengths[i]));
    lengths_.push_back(lengths[i]);
  }
  rows_ += added;
  set_longest();
}

void KeyValueCache::remove_row(int64_t row) {
  if (row < 0 || row >= rows_)
    throw std::out_of_range("KeyValueCache::remove_row: row " + std::to_string(row) +
                            " outside the cache's " + std::to_string(rows_) + " rows");
  const int64_t last = rows_ - 1, moved = lengths_[last];
  if (row != last) {
    keys_.narrow(0, row, 1).narrow(2, 0, moved).copy_(keys_.narrow(0, last, 1).narrow(2, 0, moved));
    values_.narrow(0, row, 1)
        .narrow(2, 0, moved)
        .copy_(values_.narrow(0, last, 1).narrow(2, 0, moved));
  }
  lengths_[row] = moved;
  lengths_.pop_back();
  rows_ = last;
  set_longest();
}

}  // namespace atencion::nn

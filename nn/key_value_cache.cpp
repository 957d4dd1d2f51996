// nn/key_value_cache.cpp — buffers written in place; see key_value_cache.h.
// Lesson: docs/12-translation.md#the-key-value-cache
#include "nn/key_value_cache.h"

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
                             int64_t head_dim, DType dtype)
    : rows_(rows) {
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
      length_ + added > capacity())
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
  // Positions [length, length + n) of the rows in use: written in place.
  keys_.narrow(0, 0, rows_).narrow(2, length_, added).copy_(keys.value());
  values_.narrow(0, 0, rows_).narrow(2, length_, added).copy_(values.value());
  length_ += added;
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
  rows_ = static_cast<int64_t>(parents.size());
}

}  // namespace atencion::nn

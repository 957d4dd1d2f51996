// tensor/aligned_array.h — an array of T that starts on a 64-byte boundary (a cache line, one
// 512-bit vector), freed by its owner: the panels of packed weights (packed_rows.h,
// bfloat16_matrix.h), read one line at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace atencion {

struct FreeAligned {
  void operator()(void* data) const { std::free(data); }
};

template <typename T>
using AlignedArray = std::unique_ptr<T[], FreeAligned>;

// `count` values, uninitialised; the size rounded up to whole lines (aligned_alloc's rule).
// Throws std::bad_alloc when there is no room.
template <typename T>
AlignedArray<T> aligned_array(std::size_t count) {
  const std::size_t bytes = std::max<std::size_t>(64, (count * sizeof(T) + 63) / 64 * 64);
  T* data = static_cast<T*>(std::aligned_alloc(64, bytes));
  if (data == nullptr) throw std::bad_alloc();
  return AlignedArray<T>(data);
}

}  // namespace atencion

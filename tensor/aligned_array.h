// tensor/aligned_array.h — an array of T that starts on a 64-byte boundary (a cache line, one
// 512-bit vector), freed by its owner: the panels of packed weights (packed_rows.h,
// bfloat16_matrix.h), read one line at a time.
//
// An array of 2 MiB or more is a mapping of its own, on a 2 MiB boundary, that the system is
// asked to back with huge pages before it is first written (madvise MADV_HUGEPAGE, where the
// system leaves that to the program: Debian's default). Decoding reads every weight once a
// token: in 4 KiB pages that is a page-table walk every 4 KiB (a longer one inside a virtual
// machine, where a guest's page tables are looked up through the host's); in 2 MiB pages, one
// every 2 MiB. A mapping of its own, because memory that the allocator hands back from earlier
// use is already in small pages. docs/performance.md#huge-pages has the figures. The advice is
// only advice: where it is refused, the pages stay small and nothing else changes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace atencion {

// Frees an array of aligned_array: unmaps its own mapping, or hands it back to the allocator.
// The deleter knows which the array is: move an AlignedArray, never reset() it to another
// pointer (the old deleter would free the new one the old way).
struct FreeAligned {
  std::size_t mapped_bytes = 0;  // > 0: a mapping of its own, of this many bytes
  void operator()(void* data) const;
};

template <typename T>
using AlignedArray = std::unique_ptr<T[], FreeAligned>;

namespace detail {
inline constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;
// A fresh mapping of `bytes` (rounded up to whole pages) on a kHugePageBytes boundary, advised
// to use huge pages: its whole 2 MiB stretches get them (aligned_array asks for whole ones).
// nullptr where the system has no such mappings.
void* map_huge_pages(std::size_t bytes);
}  // namespace detail

// `count` values, uninitialised; the size rounded up to whole lines (aligned_alloc's rule), or
// from 2 MiB on to whole huge pages: up to 2 MiB more, but a last stretch in small pages made
// GPT-2 small's float32 decoding 9% slower (docs/performance.md#huge-pages). Throws
// std::bad_alloc when there is no room.
template <typename T>
AlignedArray<T> aligned_array(std::size_t count) {
  using detail::kHugePageBytes;
  if (count > (SIZE_MAX - 2 * kHugePageBytes) / sizeof(T)) throw std::bad_alloc();
  const std::size_t wanted = count * sizeof(T);
  if (wanted >= kHugePageBytes) {
    const std::size_t bytes = (wanted + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    if (void* data = detail::map_huge_pages(bytes))
      return AlignedArray<T>(static_cast<T*>(data), FreeAligned{bytes});
  }
  const std::size_t bytes = std::max<std::size_t>(64, (wanted + 63) / 64 * 64);
  T* data = static_cast<T*>(std::aligned_alloc(64, bytes));
  if (data == nullptr) throw std::bad_alloc();
  return AlignedArray<T>(data);
}

}  // namespace atencion

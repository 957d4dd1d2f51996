// tensor/aligned_array.cpp — the huge-page mappings of aligned_array (tensor/aligned_array.h).
#include "tensor/aligned_array.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace atencion {

void FreeAligned::operator()(void* data) const {
#if defined(__linux__)
  if (mapped_bytes > 0) {
    munmap(data, mapped_bytes);
    return;
  }
#endif
  std::free(data);
}

namespace detail {

void* map_huge_pages([[maybe_unused]] std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // One huge page more than asked, then the ends cut off to leave a 2 MiB boundary.
  const std::size_t padded = bytes + kHugePageBytes;
  void* mapped = mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(mapped);
  const std::uintptr_t begin = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::uintptr_t end = begin + bytes, mapped_end = start + padded;
  if (begin > start) munmap(mapped, begin - start);
  if (mapped_end > end) munmap(reinterpret_cast<void*>(end), mapped_end - end);
  // Refused where the system gives programs no huge pages (transparent_hugepage "never"): the
  // array then has 4 KiB pages, as any other.
  (void)madvise(reinterpret_cast<void*>(begin), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(begin);
#else
  return nullptr;
#endif
}

}  // namespace detail
}  // namespace atencion

// tensor/aligned_array.cpp — the huge-page mappings of aligned_array (tensor/aligned_array.h).
#include "tensor/aligned_array.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace atencion {

void FreeAligned::operator()(void* data) const {
#if defined(__linux__)
  if (mapped_bytes > 0) {
    munmap(data, mapped_bytes);  // the length may end inside a page: its whole pages go
    return;
  }
#endif
  std::free(data);
}

namespace detail {

void* map_huge_pages([[maybe_unused]] std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const long page_size = sysconf(_SC_PAGESIZE);
  const std::size_t page = page_size > 0 ? static_cast<std::size_t>(page_size) : 4096;
  const std::size_t length = (bytes + page - 1) / page * page;
  // One huge page more than asked, then the ends cut off to leave a 2 MiB boundary.
  const std::size_t padded = length + kHugePageBytes;
  void* mapped = mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(mapped);
  const std::uintptr_t begin = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::uintptr_t end = begin + length, mapped_end = start + padded;
  if (begin > start) munmap(mapped, begin - start);
  if (mapped_end > end) munmap(reinterpret_cast<void*>(end), mapped_end - end);
  // Without effect where the system gives programs no huge pages (transparent_hugepage
  // "never"), refused by a kernel built without them: the array then has small pages, as any.
  (void)madvise(reinterpret_cast<void*>(begin), length, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(begin);
#else
  return nullptr;
#endif
}

}  // namespace detail
}  // namespace atencion

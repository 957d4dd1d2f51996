// tensor/storage.cpp — the block of bytes that tensors (and their views) share.
// Lesson: docs/01-tensor.md#shape-strides-offset
//
// 64-byte alignment puts every tensor's first element at the start of a cache line, which is
// also what AVX-512 loads like best. Memory is zero-filled so an `empty` tensor is never garbage;
// only Tensor::uninitialized, for kernels that overwrite every byte, skips that pass.
#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "tensor/tensor.h"

namespace atencion {

namespace {
constexpr std::size_t kAlignment = 64;

// A training step allocates and frees the same few hundred tensors every time, some of them
// tens of MiB (the logits and their gradient). glibc gives each block of 32 MiB or more (and,
// until its threshold adapts, of 128 KiB or more) pages of its own with mmap and returns them
// with munmap on free: the next step maps them again and the kernel zeroes every page on first
// touch (tens of thousands of page faults a step, a tenth of the step in system time). Held in
// the heap instead, a freed block is reused by the next step's allocation of that size or
// smaller, coalesced with its free neighbours; the heap's peak is the step's peak, as before.
//   M_MMAP_THRESHOLD  blocks up to this size come from the heap, not from mmap;
//   M_TRIM_THRESHOLD  free memory at the top of the heap is returned to the system only past
//                     this size (the end of a step frees almost everything).
// Setting either also turns off glibc's adaptive threshold. The process keeps the memory of its
// largest step until it exits, which is what a training run wants. docs/performance.md#page-faults
constexpr int kHeapBlocksUpTo = 1 << 30;        // 1 GiB
constexpr int kReturnFreeMemoryPast = 1 << 30;  // 1 GiB

void keep_freed_memory_in_the_heap() {
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, kHeapBlocksUpTo);
    mallopt(M_TRIM_THRESHOLD, kReturnFreeMemoryPast);
  });
}
std::atomic<std::size_t> live_storage_bytes{0};
std::atomic<std::size_t> peak_storage_bytes{0};

void count_allocation(std::size_t nbytes) {
  const std::size_t live = live_storage_bytes.fetch_add(nbytes) + nbytes;
  std::size_t peak = peak_storage_bytes.load();
  while (live > peak && !peak_storage_bytes.compare_exchange_weak(peak, live)) {
  }
}
}  // namespace

std::size_t Storage::live_bytes() { return live_storage_bytes.load(); }
std::size_t Storage::peak_bytes() { return peak_storage_bytes.load(); }
void Storage::reset_peak_bytes() { peak_storage_bytes.store(live_storage_bytes.load()); }

Storage::Storage(std::size_t nbytes, bool zero_fill) : nbytes_(nbytes) {
  keep_freed_memory_in_the_heap();
  // aligned_alloc wants a size that is a multiple of the alignment (and > 0); no size this
  // close to the top of the address space can be allocated, and rounding it up would wrap.
  if (nbytes > SIZE_MAX - kAlignment) throw std::bad_alloc();
  const std::size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  data_ = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (data_ == nullptr) throw std::bad_alloc();
  if (zero_fill) std::memset(data_, 0, rounded == 0 ? kAlignment : rounded);
  count_allocation(nbytes_);
}

Storage::~Storage() {
  live_storage_bytes.fetch_sub(nbytes_);
  std::free(data_);
}

}  // namespace atencion

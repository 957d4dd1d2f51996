// tensor/storage.cpp — the block of bytes that tensors (and their views) share.
// Lesson: docs/01-tensor.md#shape-strides-offset
//
// 64-byte alignment puts every tensor's first element at the start of a cache line, which is
// also what AVX-512 loads like best. Memory is zero-filled so an `empty` tensor is never garbage;
// only Tensor::uninitialized, for kernels that overwrite every byte, skips that pass.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "tensor/tensor.h"

namespace atencion {

namespace {
constexpr std::size_t kAlignment = 64;
}

Storage::Storage(std::size_t nbytes, bool zero_fill) : nbytes_(nbytes) {
  // aligned_alloc wants a size that is a multiple of the alignment (and > 0); no size this
  // close to the top of the address space can be allocated, and rounding it up would wrap.
  if (nbytes > SIZE_MAX - kAlignment) throw std::bad_alloc();
  const std::size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  data_ = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (data_ == nullptr) throw std::bad_alloc();
  if (zero_fill) std::memset(data_, 0, rounded == 0 ? kAlignment : rounded);
}

Storage::~Storage() { std::free(data_); }

}  // namespace atencion

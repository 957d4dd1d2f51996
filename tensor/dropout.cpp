// tensor/dropout.cpp — the masks of inverted dropout (the rule is in tensor/random.h).
// Lesson: docs/06-multi-head-attention.md#dropout
//
// dropout_scale is the rule written out, one element at a time. dropout_multiply applies the
// same mask to x in one pass: the words are SplitMix64's (word j = mix(state + (j+1)·γ), see
// Generator::peek_u64), so any range of elements can be drawn by any thread, and the loop over
// words vectorises once the CPU has 64-bit vector multiplies (the x86-64-v4, AVX-512, clone below).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "tensor/detail/strided.h"
#include "tensor/random.h"

namespace atencion {
namespace {

// "dropout_scale: probability 1.5 is outside [0, 1]"
void check_probability(const char* op, double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    std::ostringstream message;
    message << op << ": probability " << p << " is outside [0, 1]";
    throw std::invalid_argument(message.str());
  }
}

// y[i] = x[i] · (bits_i >= threshold ? scale : 0) for the elements of words [first_word,
// end_word), x and y pointing at element 0. Written as two loops the compiler vectorises: the
// words of a block, then one multiply per element, whose 32 bits are the block's words read as
// 32-bit halves (x86 is little-endian: the low half, element 2j, comes first).
// Compiled three times; the best one for the CPU is picked when the program starts.
template <typename T>
[[gnu::always_inline]] inline void multiply_by_mask(const T* x, T* y, Generator draws,
                                                    int64_t first_word, int64_t end_word,
                                                    uint32_t threshold, T scale) {
  static_assert(std::endian::native == std::endian::little);
  constexpr int64_t kBlock = 256;
  uint64_t words[kBlock];
  uint32_t bits[2 * kBlock];
  for (int64_t block = first_word; block < end_word; block += kBlock) {
    const int64_t n = std::min(kBlock, end_word - block);
    for (int64_t j = 0; j < n; ++j) words[j] = draws.peek_u64(static_cast<uint64_t>(block + j));
    std::memcpy(bits, words, static_cast<size_t>(n) * sizeof(uint64_t));
    const T* in = x + 2 * block;
    T* out = y + 2 * block;
    for (int64_t i = 0; i < 2 * n; ++i) out[i] = in[i] * (bits[i] >= threshold ? scale : T(0));
  }
}

#define ATENCION_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
ATENCION_CLONES void multiply_words(const float* x, float* y, Generator draws, int64_t first,
                                    int64_t end, uint32_t threshold, float scale) {
  multiply_by_mask(x, y, draws, first, end, threshold, scale);
}
ATENCION_CLONES void multiply_words(const double* x, double* y, Generator draws, int64_t first,
                                    int64_t end, uint32_t threshold, double scale) {
  multiply_by_mask(x, y, draws, first, end, threshold, scale);
}
#undef ATENCION_CLONES

}  // namespace

// u = bits / 2^32 >= p  ⇔  bits >= ⌈p · 2^32⌉ (bits is an integer); 2^32 for p = 1 drops all.
uint64_t dropout_keep_threshold(double p) {
  return static_cast<uint64_t>(std::ceil(std::ldexp(p, 32)));
}

double dropout_kept_scale(double p) { return p < 1.0 ? 1.0 / (1.0 - p) : 0.0; }

Tensor dropout_scale(const Shape& shape, double p, Generator& generator, DType dtype) {
  check_probability("dropout_scale", p);
  const uint64_t threshold = dropout_keep_threshold(p);
  const int64_t count = shape_numel(shape);
  Tensor scale = Tensor::uninitialized(shape, dtype);
  detail::dispatch_floating("dropout_scale", dtype, [&](auto tag) {
    using T = decltype(tag);
    T* values = scale.data<T>();
    for (int64_t i = 0; i < count; ++i) {
      const uint64_t word = generator.peek_u64(static_cast<uint64_t>(i / 2));
      const uint64_t bits = i % 2 == 0 ? word & 0xFFFFFFFFu : word >> 32;  // u_i = bits / 2^32
      values[i] = bits >= threshold ? static_cast<T>(dropout_kept_scale(p)) : T(0);
    }
  });
  generator.skip(dropout_words(count));
  return scale;
}

Tensor dropout_multiply(const Tensor& x, double p, const Generator& draws) {
  detail::check_defined("dropout_multiply", x);
  check_probability("dropout_multiply", p);
  const Tensor in = x.contiguous();  // element i of the row-major order uses bits_i
  Tensor out = Tensor::uninitialized(x.shape(), x.dtype());
  const int64_t count = out.numel(), whole_words = count / 2;
  const uint64_t threshold = dropout_keep_threshold(p);
  // A threshold of 2^32 (p = 1, or within 2^-32 of it) keeps nothing: scale 0 for every element.
  const bool keeps_some = threshold <= 0xFFFFFFFFu;
  detail::dispatch_floating("dropout_multiply", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* source = in.data<T>();
    T* values = out.data<T>();
    const T scale = keeps_some ? static_cast<T>(dropout_kept_scale(p)) : T(0);
    const uint32_t threshold32 = keeps_some ? static_cast<uint32_t>(threshold) : 0;
    constexpr int64_t kWordsPerChunk = 2048;
    detail::parallel_for((whole_words + kWordsPerChunk - 1) / kWordsPerChunk, 2 * kWordsPerChunk,
                         [&](int64_t chunk) {
                           const int64_t first = chunk * kWordsPerChunk;
                           multiply_words(source, values, draws, first,
                                          std::min(whole_words, first + kWordsPerChunk),
                                          threshold32, scale);
                         });
    if (count % 2 == 1) {  // the last element of an odd count: the low half of one more word
      const uint64_t bits = draws.peek_u64(static_cast<uint64_t>(whole_words)) & 0xFFFFFFFFu;
      values[count - 1] = source[count - 1] * (bits >= threshold32 ? scale : T(0));
    }
  });
  return out;
}

}  // namespace atencion

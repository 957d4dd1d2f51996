// examples/base/data/shuffle.h — a seeded shuffle that gives the same order on every machine.
// Lesson: docs/12-translation.md#batching
//
// std::shuffle and the std distributions are allowed to differ between standard libraries,
// so the data order is drawn from our own generator: SplitMix64 (Steele, Lea and Flood,
// "Fast splittable pseudorandom number generators", 2014), a 64-bit counter scrambled by
// two multiply-xorshift rounds, and a Fisher–Yates shuffle on top of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace atencion::examples {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();
  // Uniform in [0, bound), without the bias of `next() % bound` (Lemire's method: keep the
  // high word of next() * bound, redraw in the rare case that the low word is too small).
  uint64_t below(uint64_t bound);

 private:
  uint64_t state_;
};

// A seed for one use of a stream, e.g. the batches of one epoch: (seed, stream) -> seed.
uint64_t derive_seed(uint64_t seed, uint64_t stream);

// Fisher–Yates: for i from the end down, swap item i with a uniform item in [0, i].
template <typename T>
void shuffle(std::vector<T>& items, SplitMix64& generator) {
  for (size_t i = items.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(generator.below(i));
    std::swap(items[i - 1], items[j]);
  }
}

}  // namespace atencion::examples

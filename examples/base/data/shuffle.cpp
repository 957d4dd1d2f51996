// examples/base/data/shuffle.cpp — see shuffle.h.
#include "base/data/shuffle.h"

namespace atencion::examples {

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t SplitMix64::below(uint64_t bound) {
  // bound * next() as a 128-bit number is uniform over bound copies of [0, 2^64); its high
  // word is the answer unless the low word falls in the first (2^64 mod bound) values.
  const uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
  while (true) {
    const unsigned __int128 product = static_cast<unsigned __int128>(next()) * bound;
    if (static_cast<uint64_t>(product) >= threshold) return static_cast<uint64_t>(product >> 64);
  }
}

uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  SplitMix64 mixer(seed ^ (stream * 0xD1B54A32D192ED03ull));
  return mixer.next();
}

}  // namespace atencion::examples

// tensor/random.h — a seeded random generator that gives the same numbers on every machine.
// Lesson: docs/01-tensor.md#random
//
// std::normal_distribution differs between standard libraries, so we draw our own:
// SplitMix64 for 64-bit words, 53-bit uniforms in [0, 1), and Box–Muller for normals.
// Exactly (implemented in tensor/random.cpp, replicated by tests/tensor/test_random.cpp):
//   next_u64:  state += 0x9E3779B97F4A7C15; z = state;
//              z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//              return z ^ (z >> 31)                       (the state starts at the seed)
//   uniform:   (next_u64() >> 11) * 2^-53
//   normal:    u1 = uniform(), u2 = uniform(), r = sqrt(-2 ln(1 - u1)), θ = 2π u2;
//              returns r cos θ, and keeps r sin θ for the next call
//   randint:   low + next_u64() mod (high - low)
// Tensors are filled in row-major order, one draw per element (float32 rounds the double).
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace atencion {

class Generator {
 public:
  explicit Generator(uint64_t seed = 0);
  // For a module whose every weight is loaded right after it is built (as PyTorch's
  // torch.nn.utils.skip_init): randn, rand and uniform give zeros from it and draw nothing, so
  // no time goes into an initialisation that is overwritten. Its scalar draws are the usual ones.
  static Generator skipping_tensor_draws(uint64_t seed = 0);
  bool skips_tensor_draws() const { return skips_tensor_draws_; }
  uint64_t next_u64();
  // The word next_u64() would return `ahead` calls from now (0 = the next one), without
  // drawing it: SplitMix64's state only ever adds a constant, so draw i is mix(state + (i+1)·γ).
  // Kernels use this to fill a tensor in parallel with exactly the sequential draws.
  uint64_t peek_u64(uint64_t ahead) const { return mix(state_ + (ahead + 1) * kGamma); }
  void skip(uint64_t draws) { state_ += draws * kGamma; }
  double uniform();                       // [0, 1)
  double normal();                        // mean 0, std 1
  int64_t randint(int64_t low, int64_t high);  // [low, high)
  uint64_t seed() const { return seed_; }
  // For checkpoints: the whole state, so a resumed run draws the same numbers.
  uint64_t state() const { return state_; }
  void set_state(uint64_t state) { state_ = state; has_spare_ = false; }

 private:
  static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ULL;  // the Weyl step
  // SplitMix64's output function: two xor-shift-multiply rounds and a final xor-shift.
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t seed_;
  uint64_t state_;
  bool has_spare_ = false;
  double spare_ = 0;
  bool skips_tensor_draws_ = false;
};

Tensor randn(const Shape& shape, Generator& generator, DType dtype = DType::Float32);
Tensor rand(const Shape& shape, Generator& generator, DType dtype = DType::Float32);
Tensor uniform(const Shape& shape, double low, double high, Generator& generator,
               DType dtype = DType::Float32);

// ---- dropout's masks (tensor/dropout.cpp) -------------------------------------------------------
// Lesson: docs/06-multi-head-attention.md#dropout
// Element i (row-major) is kept when its 32-bit uniform u_i = bits_i / 2^32 is at least p, and
// kept elements are scaled by 1/(1-p). The bits come two per 64-bit word: element 2j takes the
// low half of the word next_u64() would return j calls from now, element 2j+1 the high half, so
// n elements use ceil(n / 2) words. (32 bits resolve p to 2^-32; PyTorch's masks use 24.)

// u_i >= p in integers: bits_i >= dropout_keep_threshold(p) (2^32 when p = 1: nothing is kept),
// and a kept element is multiplied by dropout_kept_scale(p) = 1/(1-p) (0 when p = 1).
uint64_t dropout_keep_threshold(double p);
double dropout_kept_scale(double p);

// How many words a mask of `count` elements uses.
constexpr uint64_t dropout_words(int64_t count) { return static_cast<uint64_t>(count + 1) / 2; }

// The mask as a tensor of multipliers: 0 where dropped, 1/(1-p) where kept; the generator moves
// past the words. The readable version: one element at a time.
Tensor dropout_scale(const Shape& shape, double p, Generator& generator,
                     DType dtype = DType::Float32);

// x · dropout_scale(x.shape(), p, draws) in one parallel pass, without the scale tensor.
// `draws` is not moved, so the same copy replays the same mask: autograd's dropout keeps one
// for its backward.
Tensor dropout_multiply(const Tensor& x, double p, const Generator& draws);

}  // namespace atencion

// nn/dropout.h — randomly zero activations while training (inverted dropout).
// Lesson: docs/06-multi-head-attention.md#dropout
//
// Training: each element is kept with probability 1 - p and then scaled by 1 / (1 - p), so the
// expected value of every output equals its input and evaluation needs no rescaling.
// Evaluation (eval()) or p = 0: the identity. p = 1 zeroes everything (as torch does).
//
// Each Dropout owns its generator, seeded once from the generator given at construction, so a
// model built from one seed draws the same masks on every run and machine.
#pragma once

#include <cstdint>
#include <string>

#include "nn/module.h"
#include "tensor/random.h"

namespace atencion::nn {

class Dropout : public Module {
 public:
  Dropout(double p, Generator& generator);  // takes one 64-bit seed from `generator`
  Dropout(double p, uint64_t seed);

  Variable forward(const Variable& x);
  Variable operator()(const Variable& x) { return forward(x); }

  std::string type_name() const override;
  double p() const { return p_; }
  Generator& generator() { return generator_; }  // to save / restore its state

 private:
  double p_;
  Generator generator_;
};

}  // namespace atencion::nn

// nn/optim/sgd.h — stochastic gradient descent with momentum, as torch.optim.SGD.
// Lesson: docs/11-training.md#sgd-with-momentum
//
// For each parameter p with gradient g, at every step():
//   g ← g + weight_decay · p                                   (L2 penalty, when weight_decay > 0)
//   b ← g on the first step, then b ← momentum · b + (1 − dampening) · g      (when momentum > 0)
//   g ← g + momentum · b  if nesterov,  else  g ← b
//   p ← p − lr · g
#pragma once

#include <vector>

#include "nn/optim/optimizer.h"

namespace atencion::nn {

struct SGDOptions {
  double lr = 0.01;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;  // needs momentum > 0 and dampening = 0, as in torch
};

class SGD : public Optimizer {
 public:
  // SGD(model.parameters(), {.lr = 0.1, .momentum = 0.9})
  SGD(std::vector<Variable> parameters, SGDOptions options);
  void step() override;
  NamedTensors state_dict() const override;  // "<i>.momentum_buffer" for each started buffer
  void load_state_dict(const NamedTensors& state) override;
  const SGDOptions& options() const { return options_; }

 private:
  SGDOptions options_;
  std::vector<Tensor> momentum_buffers_;  // undefined until the parameter's first step
};

}  // namespace atencion::nn

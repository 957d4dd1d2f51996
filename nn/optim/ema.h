// nn/optim/ema.h — an exponential moving average of the weights (Polyak averaging; PyTorch's
// torch.optim.swa_utils.AveragedModel with get_ema_multi_avg_fn, TensorFlow's
// ExponentialMovingAverage with num_updates).
// Lesson: docs/11-training.md#an-average-of-the-weights
//
// After each optimizer step t (counting from 1), for every parameter θ and its average θ̄:
//
//   d_t = min(decay, (1 + t) / (10 + t))
//   θ̄ ← d_t · θ̄ + (1 − d_t) · θ
//
// The average starts at the weights it is given. Without the (1 + t) / (10 + t) term a decay
// of 0.999 would still hold half of the random initial weights after 700 steps (0.999^700 =
// 0.50); with it, early steps forget fast and the decay reaches `decay` only after
// 9 / (1 − decay) − 1 steps. The update is one element at a time, on one thread.
#pragma once

#include <cstdint>
#include <vector>

#include "autograd/variable.h"

namespace atencion::nn {

class ExponentialMovingAverage {
 public:
  // θ̄ = a copy of each parameter's value now. Throws std::invalid_argument if decay is not in
  // (0, 1) (naming it) or a parameter is neither float32 nor float64.
  ExponentialMovingAverage(std::vector<Variable> parameters, double decay);

  // θ̄ ← d_t · θ̄ + (1 − d_t) · θ after optimizer step `step`.
  void update(int64_t step);
  // Exchanges the averages and the parameters' values (no copy): the model then computes with
  // θ̄, and a second swap() gives it back its trained weights. Neither update() nor an
  // optimizer step may come between the two.
  void swap();
  // The tensors not in the parameters now: the averages, or (between two swaps) the weights.
  const std::vector<Tensor>& held() const { return held_; }
  double decay_at(int64_t step) const;  // d_t

 private:
  std::vector<Variable> parameters_;
  std::vector<Tensor> held_;
  double decay_;
};

}  // namespace atencion::nn

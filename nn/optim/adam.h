// nn/optim/adam.h — Adam and AdamW, as torch.optim.Adam and torch.optim.AdamW.
// Lesson: docs/11-training.md#adam
//
// For each parameter p with gradient g, at its t-th step (t = 1, 2, ...):
//   g ← g + weight_decay · p           (Adam only: weight decay as an L2 term in the gradient)
//   p ← p · (1 − lr · weight_decay)    (AdamW only: decay "decoupled" from the gradient)
//   m ← β1 · m + (1 − β1) · g          first moment  (running mean of g)
//   v ← β2 · v + (1 − β2) · g²         second moment (running mean of g²)
//   m̂ = m / (1 − β1^t),  v̂ = v / (1 − β2^t)   bias correction: m and v start at 0
//   p ← p − lr · m̂ / (√v̂ + ε)          ε is added after the square root, as torch does
// The paper trains with β1 = 0.9, β2 = 0.98, ε = 1e-9; torch's defaults are 0.9, 0.999, 1e-8.
#pragma once

#include <cstdint>
#include <vector>

#include "nn/optim/optimizer.h"

namespace atencion::nn {

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
};

// The same fields; only the default weight decay differs, as in torch.
struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;
};

class Adam : public Optimizer {
 public:
  // Adam(model.parameters(), {.lr = 1e-3, .beta2 = 0.98, .eps = 1e-9})
  Adam(std::vector<Variable> parameters, AdamOptions options);
  void step() override;  // every element of every parameter: step_part(0, 1)
  // Part `index` of `count` of each parameter with a gradient (part_of in optimizer.h) takes
  // the step, the other elements and their moments stay as they are; every such parameter
  // counts the step. Each element's update is the same arithmetic, so N processes that each
  // take their part (index = rank, count = N) and then exchange them hold, together, the
  // bits of one step(): the optimizer's work shared out (ZeRO stage 1,
  // docs/13-data-parallel.md#the-update-shared-out).
  void step_part(int index, int count);
  // "<i>.step" (Int64 scalar), "<i>.exp_avg" (m) and "<i>.exp_avg_sq" (v) for each parameter
  // that has taken a step; torch's names for the same buffers.
  NamedTensors state_dict() const override;
  // m and v of each parameter that has taken a step, in the parameters' order: the buffers
  // themselves (on N processes each holds its own part up to date until they are exchanged).
  std::vector<Tensor> moments() const;
  void load_state_dict(const NamedTensors& state) override;
  const AdamOptions& options() const { return options_; }
  int64_t step_count(std::size_t parameter_index) const { return states_.at(parameter_index).step; }

 protected:
  Adam(std::vector<Variable> parameters, AdamOptions options, bool decoupled_weight_decay,
       const char* name);

 private:
  struct State {
    int64_t step = 0;
    Tensor exp_avg;     // m
    Tensor exp_avg_sq;  // v
  };
  AdamOptions options_;
  bool decoupled_weight_decay_;  // AdamW
  const char* name_;
  std::vector<State> states_;
};

class AdamW : public Adam {
 public:
  AdamW(std::vector<Variable> parameters, AdamWOptions options);
};

}  // namespace atencion::nn

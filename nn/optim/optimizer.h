// nn/optim/optimizer.h — what every optimizer shares: the parameters it updates, the learning
// rate, zero_grad, and its state as named tensors for checkpoints.
// Lesson: docs/11-training.md#optimizers
//
// Like torch.optim.Optimizer:
//  * step() reads each parameter's .grad and updates the parameter's value IN PLACE, without
//    recording a graph. A parameter whose .grad is undefined is skipped (it did not take part
//    in the loss), and its state does not advance.
//  * zero_grad() drops every parameter's .grad (set_to_none=True); backward() adds into .grad,
//    so a training step is: zero_grad(); loss.backward(); step().
//  * state_dict() / load_state_dict() carry the per-parameter buffers (momentum, Adam's
//    moments, step counts), named "<index>.<buffer>" with the parameter's position in the
//    list given to the constructor, so a resumed run continues exactly where it stopped.
//    As torch's, state_dict() hands out the buffers themselves, not copies (a checkpoint of
//    the translator would otherwise copy Adam's two moments, twice the model's size): the next
//    step() changes them; clone() them to keep a snapshot. load_state_dict copies what it is
//    given.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "tensor/safetensors.h"

namespace atencion::nn {


class Optimizer {
 public:
  Optimizer(std::vector<Variable> parameters, double learning_rate);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  virtual void step() = 0;
  void zero_grad();

  double learning_rate() const { return learning_rate_; }
  void set_learning_rate(double learning_rate);  // a schedule calls this before each step()
  const std::vector<Variable>& parameters() const { return parameters_; }

  // Buffers for a checkpoint; load_state_dict checks that the names, shapes and dtypes are the
  // ones this optimizer would write and says which one differs.
  virtual NamedTensors state_dict() const = 0;
  virtual void load_state_dict(const NamedTensors& state) = 0;

 protected:
  std::vector<Variable> parameters_;
  double learning_rate_;
};

// The part `index` of `count` of a tensor's `numel` elements: numel / count of them each, the
// first numel % count parts one more, contiguous, disjoint, together all of them (a part may
// be empty when numel < count). distributed::shard_rows cuts a batch's rows the same way. On
// N processes process r updates part r of every parameter
// (Adam::step_part, docs/13-data-parallel.md#the-update-shared-out).
struct ElementRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t count() const { return end - begin; }
};
ElementRange part_of(int64_t numel, int index, int count);

namespace optim_detail {
// Finds `name` in `state` and checks it has `shape` and `dtype`; `owner` names the optimizer in
// the message ("Adam.load_state_dict: ...").
const Tensor& find_state(const char* owner, const NamedTensors& state, const std::string& name,
                         const Shape& shape, DType dtype);
// A contiguous float copy (or the tensor itself) of a gradient, checked against its parameter.
Tensor gradient_of(const char* owner, const Variable& parameter, std::size_t index);
}  // namespace optim_detail

}  // namespace atencion::nn

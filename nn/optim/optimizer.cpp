// nn/optim/optimizer.cpp — Lesson: docs/11-training.md#optimizers
#include "nn/optim/optimizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace atencion::nn {

Optimizer::Optimizer(std::vector<Variable> parameters, double learning_rate)
    : parameters_(std::move(parameters)), learning_rate_(learning_rate) {
  set_learning_rate(learning_rate);
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const Variable& parameter = parameters_[i];
    if (!parameter.defined() || !parameter.is_leaf() || !parameter.requires_grad())
      throw std::invalid_argument("Optimizer: parameter " + std::to_string(i) +
                                  " is not a leaf Variable that requires grad");
    if (!is_floating(parameter.dtype()))
      throw std::invalid_argument("Optimizer: parameter " + std::to_string(i) + " has dtype " +
                                  dtype_name(parameter.dtype()) + ", not a float dtype");
  }
}

void Optimizer::zero_grad() {
  for (Variable& parameter : parameters_) parameter.zero_grad();
}

void Optimizer::set_learning_rate(double learning_rate) {
  if (!(learning_rate >= 0) || !std::isfinite(learning_rate))
    throw std::invalid_argument("Optimizer: learning rate " + std::to_string(learning_rate) +
                                " must be finite and >= 0");
  learning_rate_ = learning_rate;
}

ElementRange part_of(int64_t numel, int index, int count) {
  if (numel < 0 || count < 1 || index < 0 || index >= count)
    throw std::invalid_argument("part_of: part " + std::to_string(index) + " of " +
                                std::to_string(count) + " of " + std::to_string(numel) +
                                " elements");
  // numel / count each, and the first numel % count parts one more.
  const int64_t base = numel / count, extra = numel % count;
  const int64_t begin = index * base + std::min<int64_t>(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}

namespace optim_detail {

const Tensor& find_state(const char* owner, const NamedTensors& state, const std::string& name,
                         const Shape& shape, DType dtype) {
  for (const auto& [key, tensor] : state) {
    if (key != name) continue;
    if (tensor.shape() != shape || tensor.dtype() != dtype)
      throw std::invalid_argument(std::string(owner) + ".load_state_dict: '" + name + "' is " +
                                  shape_to_string(tensor.shape()) + " " +
                                  dtype_name(tensor.dtype()) + ", expected " +
                                  shape_to_string(shape) + " " + dtype_name(dtype));
    return tensor;
  }
  throw std::invalid_argument(std::string(owner) + ".load_state_dict: missing '" + name + "'");
}

Tensor gradient_of(const char* owner, const Variable& parameter, std::size_t index) {
  const Tensor& grad = parameter.grad();
  if (grad.shape() != parameter.shape() || grad.dtype() != parameter.dtype())
    throw std::invalid_argument(std::string(owner) + ".step: parameter " + std::to_string(index) +
                                " is " + shape_to_string(parameter.shape()) + " " +
                                dtype_name(parameter.dtype()) + " but its grad is " +
                                shape_to_string(grad.shape()) + " " + dtype_name(grad.dtype()));
  return grad.contiguous();
}

}  // namespace optim_detail
}  // namespace atencion::nn

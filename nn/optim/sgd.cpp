// nn/optim/sgd.cpp — Lesson: docs/11-training.md#sgd-with-momentum
#include "nn/optim/sgd.h"

#include <stdexcept>
#include <string>

#include "tensor/threads.h"

namespace atencion::nn {
namespace {

// One parameter's update, element by element (see the formulas in sgd.h). `buffer` is null
// without momentum; `first_step` says whether the buffer starts as a copy of g.
template <typename T>
void sgd_update(T* param, const T* grad, T* buffer, int64_t n, const SGDOptions& o,
                double lr, bool first_step) {
  parallel_for_ranges(n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      T g = grad[i];
      if (o.weight_decay != 0) g += static_cast<T>(o.weight_decay) * param[i];
      if (buffer) {
        T& b = buffer[i];
        b = first_step ? g
                       : static_cast<T>(o.momentum) * b + static_cast<T>(1 - o.dampening) * g;
        g = o.nesterov ? g + static_cast<T>(o.momentum) * b : b;
      }
      param[i] -= static_cast<T>(lr) * g;
    }
  });
}

}  // namespace

SGD::SGD(std::vector<Variable> parameters, SGDOptions options)
    : Optimizer(std::move(parameters), options.lr),
      options_(options),
      momentum_buffers_(parameters_.size()) {
  if (options.momentum < 0 || options.weight_decay < 0 || options.dampening < 0)
    throw std::invalid_argument("SGD: momentum, dampening and weight_decay must be >= 0");
  if (options.nesterov && (options.momentum <= 0 || options.dampening != 0))
    throw std::invalid_argument("SGD: nesterov needs momentum > 0 and dampening 0");
}

void SGD::step() {
  NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    Variable& parameter = parameters_[i];
    if (!parameter.has_grad()) continue;
    Tensor grad = optim_detail::gradient_of("SGD", parameter, i);
    Tensor& value = parameter.mutable_value();
    if (!value.is_contiguous())
      throw std::invalid_argument("SGD.step: parameter " + std::to_string(i) +
                                  " is not contiguous");
    const bool first_step = !momentum_buffers_[i].defined();
    if (options_.momentum != 0 && first_step)
      momentum_buffers_[i] = Tensor::zeros(value.shape(), value.dtype());
    Tensor& buffer = momentum_buffers_[i];
    const bool use_buffer = options_.momentum != 0;
    if (value.dtype() == DType::Float32)
      sgd_update(value.data<float>(), grad.data<float>(),
                 use_buffer ? buffer.data<float>() : nullptr, value.numel(), options_,
                 learning_rate_, first_step);
    else
      sgd_update(value.data<double>(), grad.data<double>(),
                 use_buffer ? buffer.data<double>() : nullptr, value.numel(), options_,
                 learning_rate_, first_step);
  }
}

NamedTensors SGD::state_dict() const {
  NamedTensors state;
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    if (momentum_buffers_[i].defined())
      state.emplace_back(std::to_string(i) + ".momentum_buffer", momentum_buffers_[i]);  // shared
  return state;
}

void SGD::load_state_dict(const NamedTensors& state) {
  std::vector<Tensor> buffers(parameters_.size());
  std::size_t found = 0;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const std::string name = std::to_string(i) + ".momentum_buffer";
    bool present = false;
    for (const auto& entry : state) present = present || entry.first == name;
    if (!present) continue;
    buffers[i] = optim_detail::find_state("SGD", state, name, parameters_[i].shape(),
                                          parameters_[i].dtype())
                     .clone();
    ++found;
  }
  if (found != state.size())
    throw std::invalid_argument("SGD.load_state_dict: " + std::to_string(state.size()) +
                                " entries, but only " + std::to_string(found) +
                                " name a momentum buffer of one of the " +
                                std::to_string(parameters_.size()) + " parameters");
  momentum_buffers_ = std::move(buffers);
}

}  // namespace atencion::nn

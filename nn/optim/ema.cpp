// nn/optim/ema.cpp — see ema.h. Lesson: docs/11-training.md#an-average-of-the-weights
#include "nn/optim/ema.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace atencion::nn {
namespace {

template <typename T>
void blend(Tensor& average, const Tensor& value, double decay) {
  T* a = average.data<T>();
  const T* v = value.data<T>();
  const T keep = static_cast<T>(decay), take = static_cast<T>(1.0 - decay);
  for (int64_t i = 0, n = average.numel(); i < n; ++i) a[i] = keep * a[i] + take * v[i];
}

}  // namespace

ExponentialMovingAverage::ExponentialMovingAverage(std::vector<Variable> parameters, double decay)
    : parameters_(std::move(parameters)), decay_(decay) {
  if (!(decay > 0 && decay < 1))
    throw std::invalid_argument("ExponentialMovingAverage: decay " + std::to_string(decay) +
                                " must be in (0, 1)");
  for (const Variable& parameter : parameters_) {
    const DType dtype = parameter.value().dtype();
    if (dtype != DType::Float32 && dtype != DType::Float64)
      throw std::invalid_argument(std::string("ExponentialMovingAverage: a parameter of dtype ") +
                                  dtype_name(dtype) + " (float32 or float64 only)");
    held_.push_back(parameter.value().clone());
  }
}

double ExponentialMovingAverage::decay_at(int64_t step) const {
  const double t = static_cast<double>(std::max<int64_t>(step, 1));
  return std::min(decay_, (1 + t) / (10 + t));
}

void ExponentialMovingAverage::update(int64_t step) {
  const double decay = decay_at(step);
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const Tensor value = parameters_[i].value().contiguous();
    if (held_[i].dtype() == DType::Float64)
      blend<double>(held_[i], value, decay);
    else
      blend<float>(held_[i], value, decay);
  }
}

void ExponentialMovingAverage::swap() {
  for (size_t i = 0; i < parameters_.size(); ++i)
    std::swap(parameters_[i].mutable_value(), held_[i]);
}

}  // namespace atencion::nn

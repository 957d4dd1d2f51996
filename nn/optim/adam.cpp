// nn/optim/adam.cpp — Lesson: docs/11-training.md#adam
//
// Compiled with -fno-math-errno -fno-trapping-math (CMakeLists.txt), so that the float loops
// below vectorise.
#include "nn/optim/adam.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "tensor/threads.h"

namespace atencion::nn {
namespace {

// The scalars of one step, computed once in double (as torch does) from the options and t.
struct AdamStepScalars {
  double beta1, beta2, eps;
  double l2_decay;             // Adam's weight_decay (added to g), 0 for AdamW
  double decoupled_factor;     // AdamW's 1 − lr · weight_decay, 1 for Adam
  double step_size;            // lr / (1 − β1^t)
  double bias_correction2_sqrt;  // √(1 − β2^t)
};

// One parameter's update, element by element, in torch's order of operations (see adam.h).
// No branch inside the loop, so that it vectorises: Adam has decoupled_factor = 1 (p · 1 = p
// exactly) and AdamW has l2_decay = 0 (g + 0·p = g exactly).
template <typename T>
void adam_update(T* param, const T* grad, T* exp_avg, T* exp_avg_sq, int64_t n,
                 const AdamStepScalars& s) {
  const T one_minus_beta1 = static_cast<T>(1 - s.beta1);
  const T beta2 = static_cast<T>(s.beta2), one_minus_beta2 = static_cast<T>(1 - s.beta2);
  const T l2_decay = static_cast<T>(s.l2_decay);
  const T decoupled_factor = static_cast<T>(s.decoupled_factor);
  const T bias_correction2_sqrt = static_cast<T>(s.bias_correction2_sqrt);
  const T eps = static_cast<T>(s.eps), step_size = static_cast<T>(s.step_size);
  // Element by element: the same bits however the elements are shared out.
  parallel_for_ranges(n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T g = grad[i] + l2_decay * param[i];          // Adam's L2 term (0 for AdamW)
      const T p = param[i] * decoupled_factor;            // AdamW's decay (1 for Adam)
      const T m = exp_avg[i] + one_minus_beta1 * (g - exp_avg[i]);    // m ← β1·m + (1−β1)·g
      const T v = beta2 * exp_avg_sq[i] + one_minus_beta2 * g * g;    // v ← β2·v + (1−β2)·g²
      const T denom = std::sqrt(v) / bias_correction2_sqrt + eps;     // √v̂ + ε
      exp_avg[i] = m;
      exp_avg_sq[i] = v;
      param[i] = p - step_size * (m / denom);                          // p ← p − lr·m̂/(√v̂ + ε)
    }
  });
}

// The elements `part` of one parameter, its gradient and its two moments.
template <typename T>
void update_part(Tensor& value, Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                 ElementRange part, const AdamStepScalars& s) {
  const int64_t b = part.begin;
  adam_update(value.data<T>() + b, grad.data<T>() + b, exp_avg.data<T>() + b,
              exp_avg_sq.data<T>() + b, part.count(), s);
}

}  // namespace

Adam::Adam(std::vector<Variable> parameters, AdamOptions options)
    : Adam(std::move(parameters), options, false, "Adam") {}

Adam::Adam(std::vector<Variable> parameters, AdamOptions options, bool decoupled_weight_decay,
           const char* name)
    : Optimizer(std::move(parameters), options.lr),
      options_(options),
      decoupled_weight_decay_(decoupled_weight_decay),
      name_(name),
      states_(parameters_.size()) {
  if (!(options.beta1 >= 0 && options.beta1 < 1 && options.beta2 >= 0 && options.beta2 < 1))
    throw std::invalid_argument(std::string(name) + ": betas (" + std::to_string(options.beta1) +
                                ", " + std::to_string(options.beta2) + ") must be in [0, 1)");
  if (!(options.eps >= 0) || !(options.weight_decay >= 0))
    throw std::invalid_argument(std::string(name) + ": eps and weight_decay must be >= 0");
}

AdamW::AdamW(std::vector<Variable> parameters, AdamWOptions o)
    : Adam(std::move(parameters), {o.lr, o.beta1, o.beta2, o.eps, o.weight_decay}, true,
           "AdamW") {}

void Adam::step() { step_part(0, 1); }

void Adam::step_part(int index, int count) {
  if (count < 1 || index < 0 || index >= count)
    throw std::invalid_argument(std::string(name_) + ".step_part: part " + std::to_string(index) +
                                " of " + std::to_string(count) + " (0 <= index < count)");
  NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    Variable& parameter = parameters_[i];
    if (!parameter.has_grad()) continue;
    Tensor grad = optim_detail::gradient_of(name_, parameter, i);
    Tensor& value = parameter.mutable_value();
    if (!value.is_contiguous())
      throw std::invalid_argument(std::string(name_) + (count == 1 ? ".step" : ".step_part") +
                                  ": parameter " + std::to_string(i) + " is not contiguous");
    State& state = states_[i];
    if (state.step == 0) {
      state.exp_avg = Tensor::zeros(value.shape(), value.dtype());
      state.exp_avg_sq = Tensor::zeros(value.shape(), value.dtype());
    }
    state.step += 1;
    const double t = static_cast<double>(state.step);
    const double lr = learning_rate_, wd = options_.weight_decay;
    const AdamStepScalars scalars{
        options_.beta1,
        options_.beta2,
        options_.eps,
        decoupled_weight_decay_ ? 0.0 : wd,
        decoupled_weight_decay_ ? 1.0 - lr * wd : 1.0,
        lr / (1.0 - std::pow(options_.beta1, t)),
        std::sqrt(1.0 - std::pow(options_.beta2, t)),
    };
    const ElementRange part = part_of(value.numel(), index, count);
    if (value.dtype() == DType::Float32)
      update_part<float>(value, grad, state.exp_avg, state.exp_avg_sq, part, scalars);
    else
      update_part<double>(value, grad, state.exp_avg, state.exp_avg_sq, part, scalars);
  }
}

std::vector<Tensor> Adam::moments() const {
  std::vector<Tensor> moments;
  for (const State& state : states_)
    if (state.step > 0) {
      moments.push_back(state.exp_avg);
      moments.push_back(state.exp_avg_sq);
    }
  return moments;
}

NamedTensors Adam::state_dict() const {
  NamedTensors state;
  for (std::size_t i = 0; i < states_.size(); ++i) {
    if (states_[i].step == 0) continue;
    const std::string prefix = std::to_string(i) + ".";
    state.emplace_back(prefix + "step", Tensor::from_ids({states_[i].step}, {}));
    state.emplace_back(prefix + "exp_avg", states_[i].exp_avg);  // shared, not copied
    state.emplace_back(prefix + "exp_avg_sq", states_[i].exp_avg_sq);
  }
  return state;
}

void Adam::load_state_dict(const NamedTensors& state) {
  std::vector<State> states(parameters_.size());
  std::size_t found = 0;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const std::string prefix = std::to_string(i) + ".";
    bool present = false;
    for (const auto& entry : state) present = present || entry.first == prefix + "step";
    if (!present) continue;
    const Shape& shape = parameters_[i].shape();
    const DType dtype = parameters_[i].dtype();
    states[i].step = static_cast<int64_t>(
        optim_detail::find_state(name_, state, prefix + "step", {}, DType::Int64).item());
    if (states[i].step < 1)
      throw std::invalid_argument(std::string(name_) + ".load_state_dict: '" + prefix +
                                  "step' is " + std::to_string(states[i].step) + ", not >= 1");
    states[i].exp_avg = optim_detail::find_state(name_, state, prefix + "exp_avg", shape, dtype).clone();
    states[i].exp_avg_sq =
        optim_detail::find_state(name_, state, prefix + "exp_avg_sq", shape, dtype).clone();
    found += 3;
  }
  if (found != state.size())
    throw std::invalid_argument(std::string(name_) + ".load_state_dict: " +
                                std::to_string(state.size()) + " entries, but only " +
                                std::to_string(found) + " name a buffer of one of the " +
                                std::to_string(parameters_.size()) + " parameters");
  states_ = std::move(states);
}

}  // namespace atencion::nn

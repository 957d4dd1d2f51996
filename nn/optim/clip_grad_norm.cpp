// nn/optim/clip_grad_norm.cpp — Lesson: docs/11-training.md#gradient-clipping
#include "nn/optim/clip_grad_norm.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace atencion::nn {
namespace {

// Σ g², accumulated in double so that millions of float32 squares stay exact enough. Eight
// running sums, element i into sum i mod 8, added up in a fixed order at the end: the same
// bits on every machine and thread count, and eight additions in flight instead of one chain
// of dependent ones (about three times faster on a million numbers; the compiler turns the
// eight sums into vector registers).
template <typename T>
double sum_of_squares(const Tensor& contiguous_grad) {
  constexpr int64_t kLanes = 8;
  const T* g = contiguous_grad.data<T>();
  const int64_t n = contiguous_grad.numel();
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t lane = 0; lane < kLanes; ++lane)
      lanes[lane] += static_cast<double>(g[i + lane]) * static_cast<double>(g[i + lane]);
  for (; i < n; ++i) lanes[i % kLanes] += static_cast<double>(g[i]) * static_cast<double>(g[i]);
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

}  // namespace

double clip_grad_norm(const std::vector<Variable>& parameters, double max_norm) {
  if (!(max_norm > 0))
    throw std::invalid_argument("clip_grad_norm: max_norm " + std::to_string(max_norm) +
                                " must be > 0");
  double squares = 0;
  for (const Variable& parameter : parameters) {
    if (!parameter.has_grad()) continue;
    const Tensor grad = parameter.grad().contiguous();
    if (grad.dtype() == DType::Float32)
      squares += sum_of_squares<float>(grad);
    else if (grad.dtype() == DType::Float64)
      squares += sum_of_squares<double>(grad);
    else
      throw std::invalid_argument(std::string("clip_grad_norm: a gradient has dtype ") +
                                  dtype_name(grad.dtype()));
  }
  const double total_norm = std::sqrt(squares);
  const double scale = max_norm / (total_norm + 1e-6);
  if (scale < 1) {  // torch's test: the clip coefficient, not the norm, is compared with 1
    NoGradGuard no_grad;
    // In place, as torch does, when nothing else holds the gradient's storage (backward's
    // .grad is always its own block: autograd/engine.cpp), so that a step allocates no second
    // copy of every gradient. A gradient some other tensor shares (one the caller kept, or
    // one handed to two parameters) gets a fresh tensor instead: each is scaled exactly once.
    for (Variable parameter : parameters) {  // a handle: its .grad is the parameter's own
      if (!parameter.has_grad()) continue;
      Tensor& grad = parameter.mutable_grad();
      if (grad.storage().use_count() == 1)
        mul_(grad, scale);
      else
        grad = mul(grad, scale);
    }
  }
  return total_norm;
}

}  // namespace atencion::nn

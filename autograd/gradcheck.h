// autograd/gradcheck.h — proves a backward pass right by comparing it with finite differences.
// Lesson: docs/02-autograd.md#gradcheck
//
// For y = f(x_1, ..., x_n) with m outputs, the Jacobian J has one row per output element and one
// column per input element. gradcheck builds it twice, in float64:
//   numeric:  column by column, J[:, i] ≈ (f(x + eps·e_i) - f(x - eps·e_i)) / (2 eps)
//   analytic: row by row, J[j, :] = the gradients from one backward with grad_output = e_j
// and requires |analytic - numeric| <= atol + rtol·|numeric| for every entry (PyTorch's rule and
// default tolerances). On failure the message names the input, the element (multi-index), the
// output element and both values.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "autograd/variable.h"
#include "tensor/tensor.h"

namespace atencion {

struct GradcheckOptions {
  double eps = 1e-6;   // finite-difference step
  double atol = 1e-5;  // absolute tolerance
  double rtol = 1e-3;  // relative tolerance, times |numeric|
};

struct GradcheckResult {
  bool ok = false;
  std::string message;  // "gradcheck: passed ..." or what differs, where
  explicit operator bool() const { return ok; }
};

using GradcheckFunction = std::function<Variable(const std::vector<Variable>&)>;

// Checks f's gradients w.r.t. each of `inputs` (Float64; copied, so the caller's tensors are
// never touched; strided layouts such as transposes and slices are kept in the copy).
GradcheckResult gradcheck(const GradcheckFunction& f, const std::vector<Tensor>& inputs,
                          GradcheckOptions options = {});

// Also checks the gradients w.r.t. `parameters`: Float64 leaf Variables that f uses directly
// (a module's weights). Their values are perturbed in place and restored; their .grad is
// cleared (zero_grad) when the check returns.
GradcheckResult gradcheck(const GradcheckFunction& f, const std::vector<Tensor>& inputs,
                          const std::vector<Variable>& parameters, GradcheckOptions options = {});

}  // namespace atencion

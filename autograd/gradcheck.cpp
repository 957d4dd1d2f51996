// autograd/gradcheck.cpp — the full Jacobian two ways: central differences and backward.
// Lesson: docs/02-autograd.md#gradcheck
#include "autograd/gradcheck.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace atencion {

namespace {

// A copy of t over fresh storage, with t's own shape, strides and offset: a transposed or
// sliced input stays transposed or sliced. An expanded input (stride 0) shares elements, so
// perturbing one would move several: it is made contiguous instead.
Tensor copy_keeping_layout(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.strides()[d] == 0 && t.shape()[d] > 1) return t.clone();
  }
  auto storage = std::make_shared<Storage>(t.storage()->nbytes());
  std::memcpy(storage->data(), t.storage()->data(), t.storage()->nbytes());
  return Tensor(storage, t.shape(), t.strides(), t.offset(), t.dtype());
}

// Row-major flat index -> multi-index.
std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> index(shape.size());
  for (auto d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

std::string index_to_string(const std::vector<int64_t>& index) { return shape_to_string(index); }

// What gradcheck differentiates with respect to: "input 0", "parameter 2".
struct Wrt {
  std::string name;
  Variable variable;
};

// f's output values, computed without recording a graph.
std::vector<double> evaluate(const GradcheckFunction& f, const std::vector<Variable>& inputs) {
  NoGradGuard no_grad;
  return f(inputs).value().to_vector();
}

void require_float64(const std::string& what, const Tensor& t) {
  if (!t.defined() || t.dtype() != DType::Float64) {
    throw std::invalid_argument(
        "gradcheck: " + what + " must be float64 (central differences in float32 lose most "
        "digits to rounding), got " +
        (t.defined() ? std::string(dtype_name(t.dtype())) + " " + shape_to_string(t.shape())
                     : std::string("an undefined tensor")));
  }
}

}  // namespace

GradcheckResult gradcheck(const GradcheckFunction& f, const std::vector<Tensor>& inputs,
                          GradcheckOptions options) {
  return gradcheck(f, inputs, {}, options);
}

GradcheckResult gradcheck(const GradcheckFunction& f, const std::vector<Tensor>& inputs,
                          const std::vector<Variable>& parameters, GradcheckOptions options) {
  // ---- what we differentiate with respect to -----------------------------------------------
  std::vector<Variable> input_variables;
  std::vector<Wrt> wrt;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    require_float64("input " + std::to_string(k), inputs[k]);
    input_variables.emplace_back(copy_keeping_layout(inputs[k]), /*requires_grad=*/true);
    wrt.push_back({"input " + std::to_string(k), input_variables.back()});
  }
  for (std::size_t k = 0; k < parameters.size(); ++k) {
    const std::string name = "parameter " + std::to_string(k);
    if (!parameters[k].defined()) {
      throw std::invalid_argument("gradcheck: " + name + " is undefined");
    }
    require_float64(name, parameters[k].value());
    if (!parameters[k].is_leaf() || !parameters[k].requires_grad()) {
      throw std::invalid_argument("gradcheck: " + name + " must be a leaf that requires grad");
    }
    wrt.push_back({name, parameters[k]});
  }

  // ---- analytic Jacobian: one backward per output element, grad_output = e_j ------------------
  const Variable output = f(input_variables);
  require_float64("the output of f", output.value());
  const Shape output_shape = output.shape();
  const int64_t outputs = output.value().numel();
  // analytic[k][j * n_k + i] = d output_j / d (element i of wrt k)
  std::vector<std::vector<double>> analytic(wrt.size());
  for (std::size_t k = 0; k < wrt.size(); ++k) {
    analytic[k].assign(outputs * wrt[k].variable.value().numel(), 0.0);
  }
  for (int64_t j = 0; j < outputs; ++j) {
    for (Wrt& w : wrt) w.variable.zero_grad();
    if (!output.requires_grad()) break;  // f ignores every input: the Jacobian is zero
    Tensor one_hot = Tensor::zeros(output_shape, DType::Float64);
    one_hot.set(unravel(j, output_shape), 1.0);
    output.backward(one_hot, /*retain_graph=*/true);
    for (std::size_t k = 0; k < wrt.size(); ++k) {
      if (!wrt[k].variable.has_grad()) continue;  // no path from this input: a zero row
      const std::vector<double> row = wrt[k].variable.grad().to_vector();
      std::copy(row.begin(), row.end(), analytic[k].begin() + j * static_cast<int64_t>(row.size()));
    }
  }
  for (Wrt& w : wrt) w.variable.zero_grad();

  // ---- numeric Jacobian and the comparison, one input element (one column) at a time --------
  GradcheckResult result{true, ""};
  int64_t entries = 0;
  for (std::size_t k = 0; k < wrt.size(); ++k) {
    Tensor& value = wrt[k].variable.mutable_value();
    const Shape shape = value.shape();
    const int64_t elements = value.numel();
    int64_t mismatches = 0;
    std::string first_mismatch;
    for (int64_t i = 0; i < elements; ++i) {
      const std::vector<int64_t> index = unravel(i, shape);
      const double original = value.at(index);
      std::vector<double> plus, minus;
      try {
        value.set(index, original + options.eps);
        plus = evaluate(f, input_variables);
        value.set(index, original - options.eps);
        minus = evaluate(f, input_variables);
      } catch (...) {
        value.set(index, original);
        throw;
      }
      value.set(index, original);

      for (int64_t j = 0; j < outputs; ++j) {
        ++entries;
        const double numeric = (plus[j] - minus[j]) / (2 * options.eps);
        const double analytic_value = analytic[k][j * elements + i];
        const double difference = std::abs(analytic_value - numeric);
        // Written so that a NaN on either side fails.
        if (difference <= options.atol + options.rtol * std::abs(numeric)) continue;
        if (mismatches++ == 0) {
          std::ostringstream message;
          message.precision(10);
          message << wrt[k].name << " of shape " << shape_to_string(shape) << ", element "
                  << index_to_string(index) << ", output element "
                  << index_to_string(unravel(j, output_shape)) << " of shape "
                  << shape_to_string(output_shape) << ": analytic " << analytic_value
                  << ", numeric " << numeric << " (|difference| " << difference << " > atol "
                  << options.atol << " + rtol " << options.rtol << " * |numeric|)";
          first_mismatch = message.str();
        }
      }
    }
    if (mismatches > 0 && result.ok) {
      result.ok = false;
      result.message = "gradcheck: Jacobian mismatch for " + first_mismatch + "; " +
                       std::to_string(mismatches) + " of " +
                       std::to_string(elements * outputs) + " entries for " + wrt[k].name +
                       " differ";
    }
  }
  if (result.ok) {
    result.message = "gradcheck: passed (" + std::to_string(wrt.size()) + " inputs, " +
                     std::to_string(entries) + " Jacobian entries)";
  }
  return result;
}

}  // namespace atencion

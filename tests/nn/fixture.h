// tests/nn/fixture.h — the PyTorch references of tests/fixtures/ (written by
// tools/make_fixtures.py; names and conventions in tests/fixtures/README.md), and a comparison
// that says where a tensor differs.
//
//   Fixture fixture("mha_cross_padding_f64");
//   MultiHeadAttention attention(fixture.meta_int("embed_dim"), fixture.meta_int("num_heads"),
//                                generator);
//   attention.to(fixture.dtype());
//   attention.load_state_dict(fixture.parameters());
//   Variable query = fixture.input_variable("query"), memory = fixture.input_variable("memory");
//   Variable output = attention(query, memory, memory, fixture.mask());
//   REQUIRE(matches(output.value(), fixture.output()));
//   output.backward(fixture.grad_output());      // loss = sum(output * grad_output)
//   REQUIRE(matches(query.grad(), fixture.grad_input("query")));
//   require_parameter_grads_match(attention, fixture);
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "nn/module.h"
#include "tensor/ops.h"
#include "tensor/safetensors.h"

namespace atencion::testing {

// ---- comparing with a reference ------------------------------------------------------------

// The outcome of a comparison; REQUIRE(matches(...)) prints `message` when it fails.
struct Closeness {
  bool ok = false;
  std::string message;
  explicit operator bool() const { return ok; }
};

// Tolerances for comparing with torch: float64 agrees to rounding (different summation
// orders), float32 "within 1e-5 relative" as the issue asks, with an absolute floor for values
// near zero, which are sums of O(1) terms that cancel.
inline double default_rtol(DType dtype) { return dtype == DType::Float64 ? 1e-10 : 1e-5; }
inline double default_atol(DType dtype) { return dtype == DType::Float64 ? 1e-12 : 1e-6; }

// `actual` has expected's shape and dtype, and |actual - expected| <= atol + rtol·|expected|
// everywhere (equal infinities agree; NaN agrees with nothing). On failure the message names
// the worst element: its index, both values, and how many elements are off.
inline Closeness matches(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  if (!actual.defined()) return {false, "actual tensor is undefined (no gradient arrived?)"};
  if (!expected.defined()) return {false, "expected tensor is undefined"};
  if (actual.shape() != expected.shape()) {
    return {false, "shape " + shape_to_string(actual.shape()) + " but expected " +
                       shape_to_string(expected.shape())};
  }
  if (actual.dtype() != expected.dtype()) {
    return {false, std::string("dtype ") + dtype_name(actual.dtype()) + " but expected " +
                       dtype_name(expected.dtype())};
  }
  const std::vector<double> got = actual.to_vector();
  const std::vector<double> want = expected.to_vector();
  std::size_t wrong = 0, worst = 0;
  double worst_excess = -1;  // how far past its tolerance the worst element is, in tolerances
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double tolerance = atol + rtol * std::abs(want[i]);
    const bool same_infinity = std::isinf(want[i]) && got[i] == want[i];
    const double error = std::abs(got[i] - want[i]);
    if (same_infinity || error <= tolerance) continue;
    ++wrong;
    const double excess =
        std::isnan(error) ? std::numeric_limits<double>::infinity() : error / tolerance;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = i;
    }
  }
  if (wrong == 0) return {true, "all " + std::to_string(got.size()) + " elements match"};
  // The flat row-major index as a multi-index.
  std::vector<int64_t> index(actual.shape().size());
  int64_t rest = static_cast<int64_t>(worst);
  for (std::size_t d = index.size(); d-- > 0;) {
    index[d] = rest % actual.shape()[d];
    rest /= actual.shape()[d];
  }
  std::ostringstream message;
  // The tolerances as written (1e-12, not 9.9999999999999998e-13), the values in full.
  message << wrong << " of " << got.size() << " elements differ (rtol " << rtol << ", atol "
          << atol << "); worst at " << shape_to_string(index) << ": ";
  message.precision(17);
  message << got[worst] << " but expected " << want[worst];
  return {false, message.str()};
}

inline Closeness matches(const Tensor& actual, const Tensor& expected) {
  return matches(actual, expected, default_rtol(expected.dtype()), default_atol(expected.dtype()));
}

// ---- one fixture file ----------------------------------------------------------------------

class Fixture {
 public:
  // `name` without directory or extension: "linear_f64", "mha_causal_padding_f32", ...
  explicit Fixture(const std::string& name)
      : name_(name),
        path_(std::string(ATENCION_FIXTURES_DIR) + "/" + name + ".safetensors"),
        tensors_(load_safetensors(path_)),
        metadata_(load_safetensors_metadata(path_)) {}

  const std::string& name() const { return name_; }
  bool has(const std::string& tensor_name) const { return tensors_.count(tensor_name) > 0; }

  // Any tensor by its full name; a missing one throws, listing the names the file has.
  const Tensor& tensor(const std::string& tensor_name) const {
    auto found = tensors_.find(tensor_name);
    if (found == tensors_.end()) {
      std::string names;
      for (const auto& [present, tensor] : tensors_) names += (names.empty() ? "" : ", ") + present;
      throw std::out_of_range("fixture " + name_ + ": no tensor '" + tensor_name + "' (it has " +
                              names + ")");
    }
    return found->second;
  }

  const Tensor& input(const std::string& input_name) const { return tensor("input." + input_name); }
  const Tensor& output() const { return tensor("output"); }
  const Tensor& attention_weights() const { return tensor("attention_weights"); }
  const Tensor& grad_output() const { return tensor("grad_output"); }
  const Tensor& grad_input(const std::string& input_name) const {
    return tensor("grad.input." + input_name);
  }
  const Tensor& grad_param(const std::string& parameter_name) const {
    return tensor("grad.param." + parameter_name);
  }
  DType dtype() const { return output().dtype(); }  // Float32 or Float64

  // A fresh leaf that requires grad, holding a copy of input.<name>.
  Variable input_variable(const std::string& input_name) const {
    return Variable(input(input_name).clone(), /*requires_grad=*/true);
  }

  // Every param.<name> with the prefix removed: what Module::load_state_dict takes.
  NamedTensors parameters() const { return with_prefix_removed("param."); }
  // Every grad.param.<name>, likewise.
  NamedTensors parameter_grads() const { return with_prefix_removed("grad.param."); }

  // The attention mask in atencion's convention (Bool, true = may attend, nn/masks.h), made
  // from the file's torch masks (true = masked out) by logical_not:
  //   key_padding_mask [batch, m_k]  -> [batch, 1, 1, m_k]
  //   attn_mask        [m_q, m_k]    -> [m_q, m_k]
  // and their logical_and when both are present; undefined (no mask) when neither is.
  Tensor mask() const {
    Tensor mask;
    if (has("input.key_padding_mask")) {
      const Tensor& padding = input("key_padding_mask");
      mask = logical_not(padding).reshape({padding.size(0), 1, 1, padding.size(1)});
    }
    if (has("input.attn_mask")) {
      const Tensor causal = logical_not(input("attn_mask"));
      mask = mask.defined() ? logical_and(mask, causal) : causal;
    }
    return mask;
  }

  // The file's __metadata__ (all strings: tests/fixtures/README.md lists the keys).
  const std::string& meta(const std::string& key) const {
    auto found = metadata_.find(key);
    if (found == metadata_.end()) {
      throw std::out_of_range("fixture " + name_ + ": no metadata '" + key + "'");
    }
    return found->second;
  }
  int64_t meta_int(const std::string& key) const { return std::stoll(meta(key)); }
  bool meta_flag(const std::string& key) const { return meta(key) == "true"; }

 private:
  NamedTensors with_prefix_removed(const std::string& prefix) const {
    NamedTensors selected;
    for (const auto& [tensor_name, tensor] : tensors_) {
      if (tensor_name.rfind(prefix, 0) == 0) {
        selected.emplace_back(tensor_name.substr(prefix.size()), tensor);
      }
    }
    return selected;
  }

  std::string name_;
  std::string path_;
  std::map<std::string, Tensor> tensors_;
  SafetensorsMetadata metadata_;
};

// After a backward of sum(output * grad_output): every parameter's .grad matches the fixture's
// grad.param.<name>, and the fixture has no gradient for a parameter the module lacks.
inline void require_parameter_grads_match(const nn::Module& module, const Fixture& fixture) {
  const auto parameters = module.named_parameters();
  REQUIRE(parameters.size() == fixture.parameter_grads().size());
  for (const auto& [name, parameter] : parameters) {
    INFO("fixture " << fixture.name() << ": gradient of parameter '" << name << "'");
    REQUIRE(matches(parameter.grad(), fixture.grad_param(name)));
  }
}

}  // namespace atencion::testing

namespace Catch {
// REQUIRE(matches(...)) shows where the tensors differ instead of "{?}".
template <>
struct StringMaker<atencion::testing::Closeness> {
  static std::string convert(const atencion::testing::Closeness& result) { return result.message; }
};
}  // namespace Catch

// examples/base/io/expected_tensors.cpp — see expected_tensors.h.
#include "base/io/expected_tensors.h"

#include <set>
#include <stdexcept>

namespace atencion::examples {
namespace {

bool is_floating_point(const std::string& stored) {
  return stored == "F32" || stored == "F64" || stored == "F16" || stored == "BF16";
}

const char* stored_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "F32";
    case DType::Float64: return "F64";
    case DType::Int64: return "I64";
    case DType::Bool: return "BOOL";
  }
  return "?";
}

}  // namespace

void add_linear(ExpectedTensors& list, const std::string& prefix, int64_t out, int64_t in) {
  list.push_back({{prefix + ".weight"}, {out, in}});
  list.push_back({{prefix + ".bias"}, {out}});
}

void add_layer_norm(ExpectedTensors& list, const std::string& prefix, int64_t size) {
  list.push_back({{prefix + ".weight"}, {size}});
  list.push_back({{prefix + ".bias"}, {size}});
}

void add_transformer_layer(ExpectedTensors& list, const std::string& prefix, int64_t d_model,
                           int64_t d_ff, bool cross_attention) {
  std::vector<std::string> attentions{"self_attn"};
  if (cross_attention) attentions.push_back("cross_attn");
  for (const std::string& attention : attentions)
    for (const char* projection : {"q_proj", "k_proj", "v_proj", "out_proj"})
      add_linear(list, prefix + attention + "." + projection, d_model, d_model);
  add_linear(list, prefix + "feed_forward.linear1", d_ff, d_model);
  add_linear(list, prefix + "feed_forward.linear2", d_model, d_ff);
  for (int norm = 1; norm <= (cross_attention ? 3 : 2); ++norm)
    add_layer_norm(list, prefix + "norm" + std::to_string(norm), d_model);
}

SafetensorsHeader header_of(const NamedTensors& tensors) {
  SafetensorsHeader header;
  for (const auto& [name, tensor] : tensors)
    header[name] = {stored_name(tensor.dtype()), tensor.shape()};
  return header;
}

void check_expected_tensors(const SafetensorsHeader& found, const ExpectedTensors& expected,
                            const std::string& file, OtherTensors others,
                            const std::string& config) {
  std::set<std::string> matched;
  for (const ExpectedTensor& tensor : expected) {
    auto entry = found.end();
    for (const std::string& name : tensor.names)
      if (entry == found.end()) entry = found.find(name);
    if (entry == found.end())
      throw std::runtime_error(file + ": no tensor '" + tensor.names.front() + "' (" + config +
                               " asks for one of shape " + shape_to_string(tensor.shape) + ")");
    const auto& [name, stored] = *entry;
    if (!is_floating_point(stored.dtype))
      throw std::runtime_error(file + ": tensor '" + name + "' is " + stored.dtype +
                               ", not floating-point weights (F32, F64, F16 or BF16)");
    if (stored.shape != tensor.shape)
      throw std::runtime_error(file + ": tensor '" + name + "' has shape " +
                               shape_to_string(stored.shape) + ", " + config + " asks for " +
                               shape_to_string(tensor.shape));
    matched.insert(name);
  }
  if (others == OtherTensors::Ignore) return;
  for (const auto& [name, stored] : found)
    if (matched.count(name) == 0)
      throw std::runtime_error(file + ": tensor '" + name + "' is not one " + config +
                               " asks for (a model of its sizes has " +
                               std::to_string(expected.size()) + " tensors)");
}

}  // namespace atencion::examples

// nn/module.cpp — named parameters in a hierarchy, train/eval, summary, save/load.
// Lesson: docs/03-linear.md#modules
#include "nn/module.h"

#include <algorithm>
#include <functional>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "tensor/safetensors.h"

namespace atencion::nn {

Variable Module::register_parameter(const std::string& name, Tensor value) {
  if (name.empty() || name.find('.') != std::string::npos) {
    throw std::invalid_argument("register_parameter: name '" + name +
                                "' must be non-empty and contain no '.'");
  }
  if (!value.defined()) {
    throw std::invalid_argument("register_parameter: '" + name + "': undefined tensor");
  }
  for (const auto& [existing, parameter] : parameters_) {
    if (existing == name) {
      throw std::invalid_argument("register_parameter: '" + name + "' is already registered");
    }
  }
  // A parameter is a leaf that requires grad: backward() accumulates into its .grad.
  Variable parameter(std::move(value), /*requires_grad=*/true);
  parameters_.emplace_back(name, parameter);
  return parameter;
}

void Module::unregister_parameter(const std::string& name) {
  auto found = std::find_if(parameters_.begin(), parameters_.end(),
                            [&](const auto& entry) { return entry.first == name; });
  if (found == parameters_.end()) {
    throw std::invalid_argument("unregister_parameter: '" + name + "' is not registered");
  }
  parameters_.erase(found);
}

void Module::collect(const std::string& prefix,
                     std::vector<std::pair<std::string, Variable>>& out) const {
  for (const auto& [name, parameter] : parameters_) out.emplace_back(prefix + name, parameter);
  for (const auto& [name, module] : submodules_) module->collect(prefix + name + ".", out);
}

std::vector<std::pair<std::string, Variable>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Variable>> out;
  collect("", out);
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_modules() const {
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  for (const auto& [name, module] : submodules_) {
    out.emplace_back(name, module);
    for (auto& [below, submodule] : module->named_modules())
      out.emplace_back(name + "." + below, std::move(submodule));
  }
  return out;
}

std::vector<Variable> Module::parameters() const {
  std::vector<Variable> out;
  for (auto& [name, parameter] : named_parameters()) out.push_back(parameter);
  return out;
}

int64_t Module::parameter_count() const {
  int64_t count = 0;
  for (const auto& parameter : parameters()) count += parameter.value().numel();
  return count;
}

void Module::zero_grad() {
  for (auto& parameter : parameters()) parameter.zero_grad();
}

void Module::train(bool training) {
  training_ = training;
  for (auto& [name, module] : submodules_) module->train(training);
}

bool Module::any_training() const {
  if (training_) return true;
  for (const auto& [name, module] : submodules_)
    if (module->any_training()) return true;
  return false;
}

void Module::to(DType dtype) {
  if (!is_floating(dtype)) {
    throw std::invalid_argument(std::string("Module::to: parameters must be float32 or float64, "
                                            "not ") +
                                dtype_name(dtype));
  }
  for (auto& parameter : parameters()) {
    if (parameter.dtype() == dtype) continue;
    parameter.mutable_value() = parameter.value().to(dtype);
    parameter.zero_grad();  // a gradient of the old dtype no longer fits the value
  }
}

std::string Module::summary() const {
  // Depth-first: this module, then each submodule indented under it, each with its count.
  std::vector<std::pair<std::string, int64_t>> lines;
  std::function<void(const Module&, const std::string&, const std::string&)> walk =
      [&](const Module& module, const std::string& indent, const std::string& label) {
        lines.emplace_back(indent + label + module.type_name(), module.parameter_count());
        for (const auto& [name, child] : module.submodules_)
          walk(*child, indent + "  ", name + ": ");
      };
  walk(*this, "", "");
  std::size_t width = 0;
  for (const auto& [text, count] : lines) width = std::max(width, text.size());
  const int text_width = static_cast<int>(width) + 2;
  std::ostringstream out;
  for (const auto& [text, count] : lines) {
    out << std::left << std::setw(text_width) << text << std::right << std::setw(12) << count
        << "\n";
  }
  out << std::left << std::setw(text_width) << "total parameters" << std::right << std::setw(12)
      << parameter_count() << "\n";
  return out.str();
}

std::vector<std::pair<std::string, Tensor>> Module::state_dict() const {
  std::vector<std::pair<std::string, Tensor>> state;
  for (const auto& [name, parameter] : named_parameters())
    state.emplace_back(name, parameter.value());
  return state;
}

void Module::load_state_dict(const std::vector<std::pair<std::string, Tensor>>& state) {
  const std::string who = "load_state_dict: " + type_name() + ": ";
  std::map<std::string, Tensor> given;
  for (const auto& [name, tensor] : state) {
    if (!given.emplace(name, tensor).second) {
      throw std::invalid_argument(who + "parameter '" + name + "' appears twice");
    }
  }
  auto parameters = named_parameters();
  // Check everything before changing anything, so a failed load leaves the module as it was.
  std::set<std::string> expected;
  for (const auto& [name, parameter] : parameters) {
    expected.insert(name);
    auto found = given.find(name);
    if (found == given.end()) {
      throw std::invalid_argument(who + "missing parameter '" + name + "' of shape " +
                                  shape_to_string(parameter.shape()));
    }
    const Tensor& tensor = found->second;
    if (!tensor.defined()) {
      throw std::invalid_argument(who + "parameter '" + name + "' is an undefined tensor");
    }
    if (tensor.shape() != parameter.shape()) {
      throw std::invalid_argument(who + "parameter '" + name + "' has shape " +
                                  shape_to_string(parameter.shape()) + " in the module but " +
                                  shape_to_string(tensor.shape()) + " in the state");
    }
    if (tensor.dtype() != parameter.dtype()) {
      throw std::invalid_argument(who + "parameter '" + name + "' is " +
                                  dtype_name(parameter.dtype()) + " in the module but " +
                                  dtype_name(tensor.dtype()) + " in the state");
    }
  }
  for (const auto& [name, tensor] : state) {
    if (!expected.count(name)) {
      throw std::invalid_argument(who + "unexpected parameter '" + name + "' of shape " +
                                  shape_to_string(tensor.shape()) + " (not in this module)");
    }
  }
  for (auto& [name, parameter] : parameters) {
    parameter.mutable_value() = given.at(name).clone();
    parameter.zero_grad();
  }
}

void Module::save(const std::string& path) const { save_safetensors(path, state_dict()); }

void Module::load(const std::string& path) {
  const auto tensors = load_safetensors(path);
  std::vector<std::pair<std::string, Tensor>> state(tensors.begin(), tensors.end());
  try {
    load_state_dict(state);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(path + ": " + error.what());
  }
}

}  // namespace atencion::nn

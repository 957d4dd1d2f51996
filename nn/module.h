// nn/module.h — the base of every layer: named parameters in a hierarchy, train/eval, save/load.
// Lesson: docs/03-linear.md#modules
//
// Like torch.nn.Module: a module registers its parameters (leaf Variables that require grad)
// and its submodules by name, so that a whole model's parameters have dotted names such as
// "encoder.layers.0.self_attn.out_proj.weight". These names are the keys of the safetensors
// checkpoint written by save() and read by load().
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/variable.h"

namespace atencion::nn {

class Module {
 public:
  virtual ~Module() = default;
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // Every parameter of this module and its submodules, in registration order, with dotted names.
  std::vector<std::pair<std::string, Variable>> named_parameters() const;
  std::vector<Variable> parameters() const;
  // Every submodule below this one (not itself), depth first, with dotted names
  // ("encoder.layers.0.dropout1"), as torch's named_modules() without the root.
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_modules() const;
  int64_t parameter_count() const;  // total number of scalars
  void zero_grad();                 // drops every parameter's .grad

  void train(bool training = true);  // sets the mode on this module and all submodules
  void eval() { train(false); }
  bool is_training() const { return training_; }
  bool any_training() const;  // this module or any submodule in training mode

  // Converts every parameter to `dtype` (Float64 for gradchecks), keeping requires_grad.
  void to(DType dtype);

  // A readable tree: each submodule's name, type and parameter count, and the total.
  std::string summary() const;
  virtual std::string type_name() const = 0;  // "Linear(in=4, out=3, bias=true)"

  // Parameters to / from a safetensors file (tensor/safetensors.h). load() checks that the file
  // has exactly this module's names, shapes and dtypes and says which one differs.
  void save(const std::string& path) const;
  void load(const std::string& path);
  // The same, from/to an in-memory name -> tensor list (used by checkpoints and fixtures).
  std::vector<std::pair<std::string, Tensor>> state_dict() const;
  void load_state_dict(const std::vector<std::pair<std::string, Tensor>>& state);

 protected:
  // Returns a handle to the same graph node the module keeps (Variable is a shared handle), so
  // a layer stores it as a member: `weight = register_parameter("weight", init)`. Module::to()
  // and load() replace the node's value in place, so every handle sees the change.
  Variable register_parameter(const std::string& name, Tensor value);
  // Removes a parameter registered by this module (LoRA's merge: nn/linear.h); throws if absent.
  void unregister_parameter(const std::string& name);
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    submodules_.emplace_back(name, module);
    return module;
  }

 private:
  void collect(const std::string& prefix,
               std::vector<std::pair<std::string, Variable>>& out) const;
  std::vector<std::pair<std::string, Variable>> parameters_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> submodules_;
  bool training_ = true;
};

}  // namespace atencion::nn

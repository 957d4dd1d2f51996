// nn/lora.cpp — adapters on the Linear layers a fine-tune names; merge; the trainable set.
// Lesson: docs/03-linear.md#lora
#include "nn/lora.h"

#include <algorithm>
#include <memory>
#include <set>
#include <stdexcept>

#include "nn/linear.h"

namespace atencion::nn {

namespace {

std::string last_part(const std::string& dotted_name) {
  const auto dot = dotted_name.rfind('.');
  return dot == std::string::npos ? dotted_name : dotted_name.substr(dot + 1);
}

std::vector<std::pair<std::string, std::shared_ptr<Linear>>> linear_layers(const Module& model) {
  std::vector<std::pair<std::string, std::shared_ptr<Linear>>> layers;
  for (auto& [name, module] : model.named_modules()) {
    if (auto linear = std::dynamic_pointer_cast<Linear>(module)) layers.emplace_back(name, linear);
  }
  return layers;
}

}  // namespace

std::vector<std::string> add_lora(Module& model, const LoRAOptions& options,
                                  Generator& generator) {
  if (options.targets.empty()) {
    throw std::invalid_argument("add_lora: no target layers named (e.g. q_proj, v_proj)");
  }
  const auto layers = linear_layers(model);
  std::set<std::string> last_parts;
  for (const auto& [name, linear] : layers) last_parts.insert(last_part(name));
  for (const std::string& target : options.targets) {
    if (!last_parts.count(target)) {
      std::string known;
      for (const std::string& part : last_parts) known += (known.empty() ? "" : ", ") + part;
      throw std::invalid_argument("add_lora: target '" + target + "' names no Linear layer of " +
                                  model.type_name() + " (its Linear layers end in: " + known +
                                  ")");
    }
  }
  // PEFT's way: the whole pretrained model is frozen; only the adapters (and whatever the
  // fine-tune unfreezes afterwards, e.g. a new task head) are trained.
  for (auto& [name, parameter] : model.named_parameters()) parameter.set_requires_grad(false);
  std::vector<std::string> adapted;
  for (const auto& [name, linear] : layers) {
    const auto& targets = options.targets;
    if (std::find(targets.begin(), targets.end(), last_part(name)) == targets.end()) continue;
    linear->add_lora(options.rank, options.alpha, generator);
    adapted.push_back(name);
  }
  return adapted;
}

int64_t merge_lora(Module& model) {
  int64_t merged = 0;
  for (const auto& [name, linear] : linear_layers(model)) {
    if (!linear->has_lora()) continue;
    linear->merge_lora();
    ++merged;
  }
  // A plain model again: every parameter trainable, as before add_lora.
  for (auto& [name, parameter] : model.named_parameters()) parameter.set_requires_grad(true);
  return merged;
}

std::vector<std::pair<std::string, Variable>> trainable_parameters(const Module& model) {
  std::vector<std::pair<std::string, Variable>> trainable;
  for (auto& [name, parameter] : model.named_parameters()) {
    if (parameter.requires_grad()) trainable.emplace_back(name, parameter);
  }
  return trainable;
}

}  // namespace atencion::nn

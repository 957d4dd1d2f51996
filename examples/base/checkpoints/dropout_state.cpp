// examples/base/checkpoints/dropout_state.cpp — see dropout_state.h.
#include "base/checkpoints/dropout_state.h"

#include <memory>
#include <stdexcept>

#include "nn/dropout.h"

namespace atencion::examples {

nlohmann::json dropout_generator_states(const nn::Module& model) {
  nlohmann::json states = nlohmann::json::object();
  for (const auto& [name, module] : model.named_modules())
    if (const auto dropout = std::dynamic_pointer_cast<nn::Dropout>(module))
      states[name] = dropout->generator().state();
  return states;
}

void restore_dropout_generator_states(const nn::Module& model, const nlohmann::json& states,
                                      const std::string& file) {
  if (!states.is_object())
    throw std::runtime_error(file + ": \"generators\" is not an object of module names");
  size_t restored = 0;
  for (const auto& [name, module] : model.named_modules()) {
    const auto dropout = std::dynamic_pointer_cast<nn::Dropout>(module);
    if (!dropout) continue;
    if (!states.contains(name) || !states.at(name).is_number_unsigned())
      throw std::runtime_error(file + ": no generator state for the dropout '" + name + "'");
    dropout->generator().set_state(states.at(name).get<uint64_t>());
    ++restored;
  }
  if (restored != states.size())
    throw std::runtime_error(file + ": " + std::to_string(states.size()) +
                             " generator states for the model's " + std::to_string(restored) +
                             " dropouts");
}

}  // namespace atencion::examples

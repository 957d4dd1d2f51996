// examples/base/finetune/adapters.cpp — Lesson: docs/18-finetuning.md#the-adapter-checkpoint
#include "base/finetune/adapters.h"

#include <map>
#include <stdexcept>

#include "base/checkpoints/checksum.h"
#include "nn/lora.h"

namespace atencion::examples {

std::string weights_checksum(const nn::Module& model) {
  uint32_t crc = 0;
  for (const auto& [name, tensor] : model.state_dict()) {
    std::string header = name;
    for (const int64_t size : tensor.shape()) {
      header += ',';
      header += std::to_string(size);
    }
    crc = crc32c(header, crc);
    const Tensor values = tensor.to(DType::Float32).contiguous();
    crc = crc32c(std::string_view(reinterpret_cast<const char*>(values.data<float>()),
                                  static_cast<size_t>(values.numel()) * sizeof(float)),
                 crc);
  }
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", crc);
  return hex;
}

nlohmann::json base_record(const nn::Module& base, const std::string& source) {
  return {{"checksum", weights_checksum(base)},
          {"parameters", base.parameter_count()},
          {"source", source}};
}

void check_same_base(const nlohmann::json& record, const nn::Module& base,
                     const std::string& base_source, const std::string& where) {
  if (!record.is_object() || !record.contains("checksum") || !record.at("checksum").is_string())
    throw std::runtime_error(where + ": no base checksum recorded (config.json \"base\")");
  const std::string recorded = record.at("checksum").get<std::string>();
  const std::string actual = weights_checksum(base);
  if (recorded == actual) return;
  const std::string source =
      record.contains("source") && record.at("source").is_string() ? record.at("source") : "?";
  throw std::runtime_error(where + ": these adapters were trained on base " + recorded + " (" +
                           source + "), not on this one (" + actual + ", from " + base_source +
                           ")");
}

NamedTensors fine_tuned_tensors(const nn::Module& model, const FineTuneSettings& settings) {
  if (!settings.uses_lora()) return model.state_dict();
  NamedTensors tensors;
  for (const auto& [name, parameter] : nn::trainable_parameters(model))
    tensors.emplace_back(name, parameter.value());
  return tensors;
}

void load_fine_tuned_tensors(nn::Module& model, const NamedTensors& tensors,
                             const FineTuneSettings& settings, const std::string& where) {
  if (!settings.uses_lora()) {
    model.load_state_dict(tensors);
    return;
  }
  std::map<std::string, Tensor> given(tensors.begin(), tensors.end());
  for (auto& [name, parameter] : nn::trainable_parameters(model)) {
    const auto found = given.find(name);
    if (found == given.end())
      throw std::runtime_error(where + ": no tensor '" + name + "' among the adapters");
    if (found->second.shape() != parameter.value().shape())
      throw std::runtime_error(where + ": tensor '" + name + "' has the wrong shape for " +
                               "this model's adapters (another rank or model?)");
    parameter.mutable_value().copy_(found->second);
    given.erase(found);
  }
  if (!given.empty())
    throw std::runtime_error(where + ": tensor '" + given.begin()->first +
                             "' is not an adapter or head of this model (other targets?)");
}

}  // namespace atencion::examples

// nn/torch_state_dict.cpp — see nn/torch_state_dict.h for the names and layouts.
// Lesson: docs/06-multi-head-attention.md#pytorch-weights
#include "nn/torch_state_dict.h"

#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "tensor/ops.h"

namespace atencion::nn {
namespace {

// Where one of our parameters goes in torch's state dict: a key, and for the packed input
// projection the row block it fills (0 = Q, 1 = K, 2 = V; -1 = the whole tensor).
struct TorchSlot {
  std::string key;
  int block = -1;
};

// "a.cross_attn.b" -> "a.multihead_attn.b", "a.feed_forward.linear1.b" -> "a.linear1.b".
std::string rename_segments(const std::string& name) {
  std::vector<std::string> segments;
  std::stringstream stream(name);
  for (std::string segment; std::getline(stream, segment, '.');) segments.push_back(segment);
  std::string renamed;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    std::string segment = segments[i];
    if (segment == "cross_attn") segment = "multihead_attn";
    const bool feed_forward_linear = segment == "feed_forward" && i + 1 < segments.size() &&
                                     (segments[i + 1] == "linear1" || segments[i + 1] == "linear2");
    if (feed_forward_linear) continue;
    renamed += (renamed.empty() ? "" : ".") + segment;
  }
  return renamed;
}

// The torch slot of each of our parameter names; `shapes` holds all of them (the packing of
// q/k/v depends on whether the three weights have one shape, as torch's _qkv_same_embed_dim).
std::map<std::string, TorchSlot> torch_slots(const std::map<std::string, Shape>& shapes) {
  static const char* const kProjections[] = {"q_proj.", "k_proj.", "v_proj."};
  std::map<std::string, TorchSlot> slots;
  for (const auto& [name, shape] : shapes) {
    TorchSlot slot{name, -1};
    for (int block = 0; block < 3; ++block) {
      const std::string projection = kProjections[block];
      for (const std::string kind : {"weight", "bias"}) {
        const std::string leaf = projection + kind;
        if (!name.ends_with(leaf)) continue;
        const std::string prefix = name.substr(0, name.size() - leaf.size());
        if (!prefix.empty() && prefix.back() != '.') continue;
        const auto shape_of = [&](const char* p) {
          const auto found = shapes.find(prefix + p + kind);
          return found == shapes.end() ? Shape{} : found->second;
        };
        const bool packed = kind == "bias" || (shape_of("q_proj.") == shape_of("k_proj.") &&
                                               shape_of("q_proj.") == shape_of("v_proj."));
        slot = packed ? TorchSlot{prefix + "in_proj_" + kind, block}
                      : TorchSlot{prefix + projection.substr(0, 6) + "_" + kind, -1};
      }
    }
    slot.key = rename_segments(slot.key);
    slots.emplace(name, slot);
  }
  return slots;
}

std::map<std::string, Shape> parameter_shapes(const Module& module) {
  std::map<std::string, Shape> shapes;
  for (const auto& [name, parameter] : module.named_parameters())
    shapes.emplace(name, parameter.shape());
  return shapes;
}

// One torch key and the parameters of ours it holds, in row-block order.
struct TorchKey {
  std::vector<std::string> ours;
  Shape shape;  // the shape torch has: the parameters' rows stacked when packed
};

std::map<std::string, TorchKey> torch_keys(const Module& module) {
  const std::map<std::string, Shape> shapes = parameter_shapes(module);
  std::map<std::string, TorchKey> keys;
  for (const auto& [name, slot] : torch_slots(shapes)) {
    TorchKey& key = keys[slot.key];
    if (slot.block < 0) {
      key.ours = {name};
      key.shape = shapes.at(name);
      continue;
    }
    if (key.ours.size() < 3) key.ours.resize(3);
    key.ours[slot.block] = name;
  }
  for (auto& [key_name, key] : keys) {
    if (key.ours.size() != 3) continue;
    key.shape = shapes.at(key.ours[0]);
    key.shape[0] *= 3;  // the three [d, ...] blocks stacked: [3d, ...]
  }
  return keys;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

NamedTensors to_torch_names(const Module& module, const NamedTensors& ours) {
  std::map<std::string, Tensor> by_name(ours.begin(), ours.end());
  NamedTensors torch;
  for (const auto& [key, slot] : torch_keys(module)) {
    std::vector<Tensor> blocks;
    for (const auto& name : slot.ours) {
      const auto found = by_name.find(name);
      if (found == by_name.end() || !found->second.defined())
        throw std::invalid_argument("to_torch_names: " + module.type_name() + ": no tensor for '" +
                                    name + "'");
      blocks.push_back(found->second);
    }
    torch.emplace_back(key, blocks.size() == 1 ? blocks[0] : cat(blocks, 0));
  }
  return torch;
}

NamedTensors torch_state_dict(const Module& module) {
  return to_torch_names(module, module.state_dict());
}

void load_torch_state_dict(Module& module, const NamedTensors& torch_state) {
  const std::string who = "load_torch_state_dict: " + module.type_name() + ": ";
  const std::map<std::string, TorchKey> keys = torch_keys(module);
  std::map<std::string, Tensor> given;
  for (const auto& [key, tensor] : torch_state) {
    if (!given.emplace(key, tensor).second)
      throw std::invalid_argument(who + "torch key '" + key + "' appears twice");
  }
  for (const auto& [key, tensor] : given) {
    if (!keys.count(key))
      throw std::invalid_argument(who + "unexpected torch key '" + key + "' of shape " +
                                  shape_to_string(tensor.shape()) + " (not in this module)");
  }

  const std::map<std::string, DType> dtypes = [&] {
    std::map<std::string, DType> result;
    for (const auto& [name, parameter] : module.named_parameters())
      result.emplace(name, parameter.dtype());
    return result;
  }();
  NamedTensors ours;
  for (const auto& [key, slot] : keys) {
    const std::string stands_for = " (" + joined(slot.ours) + ")";
    const auto found = given.find(key);
    if (found == given.end())
      throw std::invalid_argument(who + "missing torch key '" + key + "' of shape " +
                                  shape_to_string(slot.shape) + stands_for);
    const Tensor& tensor = found->second;
    if (!tensor.defined() || tensor.shape() != slot.shape)
      throw std::invalid_argument(who + "torch key '" + key + "' has shape " +
                                  (tensor.defined() ? shape_to_string(tensor.shape()) : "none") +
                                  " but the module needs " + shape_to_string(slot.shape) +
                                  stands_for);
    const DType dtype = dtypes.at(slot.ours[0]);
    if (!is_floating(tensor.dtype()))
      throw std::invalid_argument(who + "torch key '" + key + "' holds " +
                                  dtype_name(tensor.dtype()) + " values, not floating point");
    const Tensor value = tensor.to(dtype);
    if (slot.ours.size() == 1) {
      ours.emplace_back(slot.ours[0], value);
      continue;
    }
    // Packed: the rows of block b (Q, K, V) are [b·d, (b + 1)·d).
    const int64_t rows = slot.shape[0] / 3;
    for (int64_t block = 0; block < 3; ++block)
      ours.emplace_back(slot.ours[block], value.narrow(0, block * rows, rows).contiguous());
  }
  module.load_state_dict(ours);
}

void load_torch_safetensors(Module& module, const std::string& path) {
  const auto tensors = load_safetensors(path);
  try {
    load_torch_state_dict(module, NamedTensors(tensors.begin(), tensors.end()));
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(path + ": " + error.what());
  }
}

}  // namespace atencion::nn

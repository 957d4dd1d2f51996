// tensor/safetensors.h — named tensors to and from a file in the safetensors layout.
// Lesson: docs/01-tensor.md#files
//
// The layout (the one Hugging Face's `safetensors` uses, so PyTorch users can read our files):
//
//   bytes [0, 8)          N, the length of the header, an unsigned 64-bit little-endian integer
//   bytes [8, 8 + N)      the header: a JSON object, padded with spaces to a multiple of 8
//                           {"__metadata__": {"key": "value", ...},              (optional)
//                            "encoder.weight": {"dtype": "F32", "shape": [4, 3],
//                                               "data_offsets": [0, 48]}, ...}
//   bytes [8 + N, end)    the data section: every tensor's elements, row-major, little-endian,
//                         at [begin, end) counted from the start of the data section
//
// dtypes: "F32" (Float32), "F64" (Float64), "I64" (Int64), "BOOL" (Bool, one byte 0 or 1).
// The data section holds nothing but tensors: their byte ranges follow each other without gaps
// or overlaps and cover it exactly.
//
// Reading one back in Python needs no library beyond numpy:
//   import json, struct, numpy as np
//   raw = open("model.safetensors", "rb").read()
//   (n,) = struct.unpack("<Q", raw[:8]); header = json.loads(raw[8:8 + n])
//   kinds = {"F32": "<f4", "F64": "<f8", "I64": "<i8", "BOOL": "?"}
//   tensors = {name: np.frombuffer(raw[8 + n + e["data_offsets"][0]:8 + n + e["data_offsets"][1]],
//                                  dtype=kinds[e["dtype"]]).reshape(e["shape"])
//              for name, e in header.items() if name != "__metadata__"}
#pragma once

#include <concepts>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace atencion {

// Tensors with their names, in the order they are written (a Module's state_dict()).
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
// Free-form string pairs stored under "__metadata__" (a model's config, a format version, ...).
using SafetensorsMetadata = std::map<std::string, std::string>;

// Writes `tensors` (in the given order; any layout: views are written as their row-major
// values) and `metadata` to `path`. The bytes go to "<path>.tmp-<pid>" first, are flushed to
// disk (fsync) and then renamed over `path`, so a crash mid-write never leaves a half-written
// file where a good one was.
// Throws std::invalid_argument for an empty, duplicate or reserved ("__metadata__") name or an
// undefined tensor, and std::runtime_error when the file cannot be written.
void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const SafetensorsMetadata& metadata = {});
// The same for a name -> tensor map (written in the map's order). A template so that a braced
// list, save_safetensors(path, {{"weight", w}, {"bias", b}}), picks the overload above.
template <typename Map>
  requires std::same_as<typename Map::mapped_type, Tensor>
void save_safetensors(const std::string& path, const Map& tensors,
                      const SafetensorsMetadata& metadata = {}) {
  save_safetensors(path, NamedTensors(tensors.begin(), tensors.end()), metadata);
}

// Reads every tensor of the file (each into its own contiguous storage), by name. Before
// reading any data it checks the header against the file size: header length, JSON, dtype,
// shape × dtype size == length of data_offsets, offsets inside the data section, tensors
// covering it without gaps or overlaps, and BOOL bytes being 0 or 1. A bad file throws
// std::invalid_argument naming the file, the tensor and the problem, e.g.
//   "load_safetensors: model.safetensors: tensor 'encoder.weight': data_offsets [0, 4096] end
//    past the data section of 1024 bytes"
// and a file that cannot be opened or read throws std::runtime_error.
std::map<std::string, Tensor> load_safetensors(const std::string& path);

// The "__metadata__" of a file (empty if it has none); checks the header as load_safetensors
// does, without reading the data.
SafetensorsMetadata load_safetensors_metadata(const std::string& path);

}  // namespace atencion

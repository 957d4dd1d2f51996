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
// dtypes: "F32" (Float32), "F64" (Float64), "I64" (Int64), "BOOL" (Bool, one byte 0 or 1) are
// written and read as they are. Files from elsewhere may also hold F16, BF16, I32, I16, I8, U64,
// U32, U16 and U8: load_safetensors converts them (F16, BF16 -> Float32 exactly; the integers ->
// Int64, a U64 above 2^63 - 1 refused), as tensor/safetensors_dtypes.h lists, and
// save_safetensors writes floating-point tensors as F16 or BF16 on request
// (SafetensorsSaveOptions).
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

// How save_safetensors stores floating-point tensors (integer and Bool tensors are always
// written as they are).
enum class StoredFloats {
  AsIs,  // F32 / F64, bit for bit
  F16,   // IEEE half: half the size of F32; |x| >= 65520 becomes inf, |x| <= 2^-25 zero
  BF16,  // bfloat16: float32's range with 8 bits of mantissa (about 3 significant digits)
};
struct SafetensorsSaveOptions {
  // F16/BF16 round to nearest, ties to even, exactly as torch's tensor.half() / .bfloat16()
  // (float64 tensors are rounded to float32 first, as torch does); they load back as Float32.
  StoredFloats floats = StoredFloats::AsIs;
};

// Writes `tensors` (in the given order; any layout: views are written as their row-major
// values) and `metadata` to `path` through tensor/durable_write.h: "<path>.tmp-<pid>" first,
// flushed to disk (fsync), then renamed over `path`, so a crash mid-write never leaves a
// half-written file where a good one was.
// Throws std::invalid_argument for an empty, duplicate or reserved ("__metadata__") name or an
// undefined tensor, and std::runtime_error when the file cannot be written.
void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const SafetensorsMetadata& metadata = {},
                      const SafetensorsSaveOptions& options = {});
// The same for a name -> tensor map (written in the map's order). A template so that a braced
// list, save_safetensors(path, {{"weight", w}, {"bias", b}}), picks the overload above.
template <typename Map>
  requires std::same_as<typename Map::mapped_type, Tensor>
void save_safetensors(const std::string& path, const Map& tensors,
                      const SafetensorsMetadata& metadata = {},
                      const SafetensorsSaveOptions& options = {}) {
  save_safetensors(path, NamedTensors(tensors.begin(), tensors.end()), metadata, options);
}

// Reads every tensor of the file (each into its own contiguous storage), by name. Before
// reading any data it checks the header against the file size: header length, JSON, dtype,
// shape × dtype size == length of data_offsets, offsets inside the data section, tensors
// covering it without gaps or overlaps; then, tensor by tensor, BOOL bytes being 0 or 1 and U64
// values fitting in Int64. Each tensor comes back in loaded_dtype() of its stored dtype
// (tensor/safetensors_dtypes.h): F64, F32, I64, BOOL as they are, F16/BF16 as Float32, the other
// integers as Int64. A bad file throws
// std::invalid_argument naming the file, the tensor and the problem, e.g.
//   "load_safetensors: model.safetensors: tensor 'encoder.weight': data_offsets [0, 4096] end
//    past the data section of 1024 bytes"
// and a file that cannot be opened or read throws std::runtime_error.
std::map<std::string, Tensor> load_safetensors(const std::string& path);

// The "__metadata__" of a file (empty if it has none); checks the header as load_safetensors
// does, without reading the data.
SafetensorsMetadata load_safetensors_metadata(const std::string& path);

}  // namespace atencion

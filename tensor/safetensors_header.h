// tensor/safetensors_header.h — what a safetensors file holds, read from its header alone: each
// tensor's name, stored dtype and shape, without reading (or allocating) its data. A loader
// compares this with what a config asks for before it reads hundreds of megabytes or builds a
// model of the config's sizes (examples/base/io/expected_tensors.h).
// Lesson: docs/01-tensor.md#files
#pragma once

#include <map>
#include <string>

#include "tensor/tensor.h"

namespace atencion {

// One tensor as the header describes it.
struct SafetensorsEntry {
  std::string dtype;  // as stored: "F32", "F64", "F16", "BF16", "I64", "BOOL", ...
  Shape shape;
  bool operator==(const SafetensorsEntry&) const = default;
};
using SafetensorsHeader = std::map<std::string, SafetensorsEntry>;  // by name

// The tensors of the file at `path`, by name. The header is checked as load_safetensors checks
// it (tensor/safetensors.h: lengths, JSON, dtypes, offsets covering the data section), and the
// same errors are thrown; no tensor's data is read.
SafetensorsHeader load_safetensors_header(const std::string& path);

}  // namespace atencion

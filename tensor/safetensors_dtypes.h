// tensor/safetensors_dtypes.h — the element types a safetensors file may hold, and how each one
// becomes one of ours on load (and F16/BF16 on save). Used by tensor/safetensors.cpp.
// Lesson: docs/01-tensor.md#files
//
//   stored                          loaded as   conversion
//   F64, F32                        Float64, Float32   none
//   F16, BF16                       Float32     exact (tensor/half.h)
//   I64, I32, I16, I8               Int64       exact (sign-extended)
//   U32, U16, U8                    Int64       exact
//   U64                             Int64       exact; a value above 2^63 − 1 is refused
//   BOOL                            Bool        each byte must be 0 or 1
//
// U8 loads as Int64, not Bool: in safetensors files U8 holds numbers (pixel values, token ids)
// as often as masks; a mask meant as Bool is stored as BOOL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "tensor/tensor.h"

namespace atencion {

enum class StoredDType { F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, BOOL };

const char* stored_dtype_name(StoredDType stored);  // "F16"
std::size_t stored_dtype_size(StoredDType stored);  // bytes per element
DType loaded_dtype(StoredDType stored);             // what load_safetensors gives back
StoredDType stored_dtype_of(DType dtype);           // how a tensor is written as it is
// "F16" -> F16; std::nullopt for a name the format does not have.
std::optional<StoredDType> parse_stored_dtype(const std::string& name);
// "F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8 or BOOL", for error messages.
std::string stored_dtype_list();

// Converts `count` little-endian elements of type `stored` at `bytes` into `out`, a contiguous
// tensor of loaded_dtype(stored) with `count` elements. Returns the index of the first element
// that has no value in the loaded dtype (a U64 above 2^63 − 1, a BOOL byte other than 0 or 1),
// or std::nullopt when all of them convert; `out` is then complete.
std::optional<int64_t> decode_elements(StoredDType stored, const unsigned char* bytes,
                                       int64_t count, Tensor& out);

// A floating-point tensor's elements as F16 or BF16 bytes, rounded to nearest even (float64
// values are rounded to float32 first, as torch's `.half()` does).
std::string encode_as_16_bit(StoredDType stored, const Tensor& tensor);

}  // namespace atencion

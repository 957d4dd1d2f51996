// tensor/safetensors_dtypes.cpp — see tensor/safetensors_dtypes.h.
// Lesson: docs/01-tensor.md#files
#include "tensor/safetensors_dtypes.h"

#include <bit>
#include <cstring>
#include <stdexcept>

#include "tensor/half.h"

namespace atencion {
namespace {

// The file stores little-endian bytes and we read them as they are.
static_assert(std::endian::native == std::endian::little,
              "safetensors: this code assumes a little-endian machine");

struct StoredDTypeInfo {
  StoredDType stored;
  const char* name;
  std::size_t size;
  DType loaded;
};

constexpr StoredDTypeInfo kStoredDTypes[] = {
    {StoredDType::F64, "F64", 8, DType::Float64},  {StoredDType::F32, "F32", 4, DType::Float32},
    {StoredDType::F16, "F16", 2, DType::Float32},  {StoredDType::BF16, "BF16", 2, DType::Float32},
    {StoredDType::I64, "I64", 8, DType::Int64},    {StoredDType::I32, "I32", 4, DType::Int64},
    {StoredDType::I16, "I16", 2, DType::Int64},    {StoredDType::I8, "I8", 1, DType::Int64},
    {StoredDType::U64, "U64", 8, DType::Int64},    {StoredDType::U32, "U32", 4, DType::Int64},
    {StoredDType::U16, "U16", 2, DType::Int64},    {StoredDType::U8, "U8", 1, DType::Int64},
    {StoredDType::BOOL, "BOOL", 1, DType::Bool},
};

const StoredDTypeInfo& info(StoredDType stored) {
  for (const StoredDTypeInfo& entry : kStoredDTypes)
    if (entry.stored == stored) return entry;
  throw std::invalid_argument("safetensors: unknown stored dtype");
}

// Element i of a little-endian array of T (memcpy: the bytes need not be aligned for T).
template <typename T>
T element(const unsigned char* bytes, int64_t i) {
  T value;
  std::memcpy(&value, bytes + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return value;
}

// Out[i] = convert(stored element i), for every element.
template <typename Stored, typename Loaded, typename Convert>
void convert_all(const unsigned char* bytes, int64_t count, Loaded* out, Convert convert) {
  for (int64_t i = 0; i < count; ++i) out[i] = convert(element<Stored>(bytes, i));
}

template <typename Stored>
void widen_integers(const unsigned char* bytes, int64_t count, Tensor& out) {
  convert_all<Stored>(bytes, count, out.data<int64_t>(),
                      [](Stored value) { return static_cast<int64_t>(value); });
}

}  // namespace

const char* stored_dtype_name(StoredDType stored) { return info(stored).name; }
std::size_t stored_dtype_size(StoredDType stored) { return info(stored).size; }
DType loaded_dtype(StoredDType stored) { return info(stored).loaded; }

StoredDType stored_dtype_of(DType dtype) {
  switch (dtype) {
    case DType::Float32: return StoredDType::F32;
    case DType::Float64: return StoredDType::F64;
    case DType::Int64: return StoredDType::I64;
    case DType::Bool: return StoredDType::BOOL;
  }
  throw std::invalid_argument("save_safetensors: unknown dtype");
}

std::optional<StoredDType> parse_stored_dtype(const std::string& name) {
  for (const StoredDTypeInfo& entry : kStoredDTypes)
    if (name == entry.name) return entry.stored;
  return std::nullopt;
}

std::string stored_dtype_list() {
  std::string list;
  const std::size_t count = std::size(kStoredDTypes);
  for (std::size_t i = 0; i < count; ++i)
    list += (i == 0 ? "" : i + 1 == count ? " or " : ", ") + std::string(kStoredDTypes[i].name);
  return list;
}

std::optional<int64_t> decode_elements(StoredDType stored, const unsigned char* bytes,
                                       int64_t count, Tensor& out) {
  const std::size_t size = stored_dtype_size(stored);
  if (count == 0) return std::nullopt;  // nothing to convert (and no buffer to memcpy from)
  switch (stored) {
    case StoredDType::F64:
    case StoredDType::F32:
    case StoredDType::I64:
      std::memcpy(out.storage()->data(), bytes, static_cast<std::size_t>(count) * size);
      return std::nullopt;
    case StoredDType::F16:
      convert_all<uint16_t>(bytes, count, out.data<float>(), half_to_float);
      return std::nullopt;
    case StoredDType::BF16:
      convert_all<uint16_t>(bytes, count, out.data<float>(), bfloat16_to_float);
      return std::nullopt;
    case StoredDType::I32: widen_integers<int32_t>(bytes, count, out); return std::nullopt;
    case StoredDType::I16: widen_integers<int16_t>(bytes, count, out); return std::nullopt;
    case StoredDType::I8: widen_integers<int8_t>(bytes, count, out); return std::nullopt;
    case StoredDType::U32: widen_integers<uint32_t>(bytes, count, out); return std::nullopt;
    case StoredDType::U16: widen_integers<uint16_t>(bytes, count, out); return std::nullopt;
    case StoredDType::U8: widen_integers<uint8_t>(bytes, count, out); return std::nullopt;
    case StoredDType::U64:
      // int64 holds [0, 2^63 − 1] of uint64's range; anything above has no value to load as.
      for (int64_t i = 0; i < count; ++i)
        if (element<uint64_t>(bytes, i) > static_cast<uint64_t>(INT64_MAX)) return i;
      widen_integers<uint64_t>(bytes, count, out);
      return std::nullopt;
    case StoredDType::BOOL:
      for (int64_t i = 0; i < count; ++i)
        if (bytes[i] > 1) return i;
      std::memcpy(out.storage()->data(), bytes, static_cast<std::size_t>(count));
      return std::nullopt;
  }
  throw std::invalid_argument("load_safetensors: unknown stored dtype");
}

std::string encode_as_16_bit(StoredDType stored, const Tensor& tensor) {
  if (stored != StoredDType::F16 && stored != StoredDType::BF16)
    throw std::invalid_argument(std::string("save_safetensors: ") + stored_dtype_name(stored) +
                                " is not a 16-bit float format");
  if (!is_floating(tensor.dtype()))
    throw std::invalid_argument(std::string("save_safetensors: a ") + dtype_name(tensor.dtype()) +
                                " tensor cannot be stored as " + stored_dtype_name(stored));
  const Tensor values = tensor.to(DType::Float32).contiguous();
  const float* data = values.data<float>();
  const auto narrow = stored == StoredDType::F16 ? float_to_half : float_to_bfloat16;
  std::string bytes(static_cast<std::size_t>(values.numel()) * 2, '\0');
  for (int64_t i = 0; i < values.numel(); ++i) {
    const uint16_t bits = narrow(data[i]);
    std::memcpy(bytes.data() + 2 * i, &bits, 2);
  }
  return bytes;
}

}  // namespace atencion

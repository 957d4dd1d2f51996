// Tests for tensor/safetensors_dtypes.cpp: every dtype of the safetensors format, read from a
// file torch (and numpy, for the unsigned types torch 1.13 lacks) wrote, converted on load; and
// F16/BF16 written on request, rounded as torch rounds.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "tensor/safetensors.h"
#include "tensor/safetensors_dtypes.h"

using namespace atencion;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const std::string kDtypes = std::string(ATENCION_FIXTURES_DIR) + "/dtypes.safetensors";

std::string temporary_file(const std::string& name) {
  return (fs::temp_directory_path() /
          ("atencion-dtypes-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

// Float32 tensors equal bit for bit (NaN included, and -0 apart from +0).
bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == DType::Float32 && b.dtype() == DType::Float32 && a.shape() == b.shape() &&
         std::memcmp(a.contiguous().data<float>(), b.contiguous().data<float>(),
                     static_cast<std::size_t>(a.numel()) * sizeof(float)) == 0;
}

// The same, except that any NaN matches any NaN: torch itself writes different NaNs for
// bfloat16 (0x7FC0 element by element, 0xFFFF in its vectorised loop).
bool same_bits_or_both_nan(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  const std::vector<double> x = a.to_vector(), y = b.to_vector();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool both_nan = std::isnan(x[i]) && std::isnan(y[i]);
    if (!both_nan && (x[i] != y[i] || std::signbit(x[i]) != std::signbit(y[i]))) return false;
  }
  return a.dtype() == b.dtype();
}

}  // namespace

TEST_CASE("safetensors dtypes: F16 and BF16 from torch load as their exact float32 values",
          "[safetensors]") {
  const auto tensors = load_safetensors(kDtypes);
  for (const char* name : {"f16", "bf16"}) {
    INFO(name);
    const Tensor& loaded = tensors.at(name);
    REQUIRE(loaded.dtype() == DType::Float32);
    // torch's own .float() of the same tensor, bit for bit.
    CHECK(same_bits(loaded, tensors.at(std::string(name) + ".as_f32")));
  }
  // And the values themselves, independently of torch.
  const std::vector<double> f16 = tensors.at("f16").to_vector();
  REQUIRE(f16.size() == 15);
  CHECK(f16[0] == 0.0);
  CHECK(std::signbit(f16[1]));
  CHECK(f16[2] == 1.0);
  CHECK(f16[3] == -2.5);
  CHECK(f16[4] == 65504.0);
  CHECK(f16[5] == -65504.0);
  CHECK(f16[6] == std::ldexp(1.0, -14));
  CHECK(f16[7] == std::ldexp(1.0, -24));  // the smallest subnormal
  CHECK(f16[8] == std::ldexp(3.0, -24));
  CHECK(f16[9] == std::ldexp(1023.0, -24));
  CHECK(f16[10] == std::numeric_limits<double>::infinity());
  CHECK(f16[11] == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(f16[12]));
  CHECK(f16[13] == 0.333251953125);  // 1/3 to 11 significant bits
  CHECK(f16[14] == 0.0999755859375);
  const std::vector<double> bf16 = tensors.at("bf16").to_vector();
  REQUIRE(bf16.size() == 12);
  CHECK(bf16[4] == 3.3895313892515355e38);  // the largest finite bfloat16
  CHECK(bf16[5] == std::ldexp(1.0, -126));
  CHECK(bf16[6] == std::ldexp(1.0, -133));  // the smallest subnormal
  CHECK(bf16[7] == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(bf16[9]));
  CHECK(bf16[10] == 0.333984375);  // 1/3 to 8 significant bits
}

TEST_CASE("safetensors dtypes: torch's and numpy's integers load as int64 with every value",
          "[safetensors]") {
  const auto tensors = load_safetensors(kDtypes);
  const int64_t two31 = int64_t{1} << 31, two32 = int64_t{1} << 32;
  const std::vector<std::pair<const char*, std::vector<int64_t>>> expected = {
      {"i32", {-two31, -1, 0, two31 - 1}},
      {"i16", {-32768, -1, 0, 32767}},
      {"i8", {-128, -1, 0, 127}},
      {"u8", {0, 1, 128, 255}},
      {"u16", {0, 1, 32768, 65535}},
      {"u32", {0, 1, two31, two32 - 1}},
      {"u64", {0, 1, two32, std::numeric_limits<int64_t>::max()}},
  };
  for (const auto& [name, values] : expected) {
    INFO(name);
    REQUIRE(tensors.at(name).dtype() == DType::Int64);
    CHECK(tensors.at(name).to_ids() == values);
  }
  CHECK(tensors.at("i16").shape() == Shape{2, 2});
}

TEST_CASE("safetensors dtypes: a U64 above the int64 maximum is refused with the tensor's name",
          "[safetensors]") {
  const std::string path = temporary_file("u64.safetensors");
  const std::string header = R"({"ids":{"dtype":"U64","shape":[2],"data_offsets":[0,16]}})";
  std::string bytes;
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  bytes += header;
  bytes += std::string(8, '\0');                    // 0
  bytes += std::string(7, '\0') + std::string("\x80", 1);  // 2^63
  std::ofstream(path, std::ios::binary) << bytes;
  REQUIRE_THROWS_WITH(load_safetensors(path),
                      Contains("tensor 'ids': U64 element 1 is 9223372036854775808, above the "
                               "int64 maximum"));
  fs::remove(path);
}

TEST_CASE("safetensors dtypes: an unknown dtype lists the known ones", "[safetensors]") {
  const std::string path = temporary_file("f8.safetensors");
  const std::string header = R"({"x":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}})";
  std::string bytes;
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  std::ofstream(path, std::ios::binary) << bytes + header + std::string(1, '\0');
  REQUIRE_THROWS_WITH(load_safetensors(path),
                      Contains("tensor 'x': unknown dtype \"F8_E4M3\" (expected F64, F32, F16, "
                               "BF16, I64, I32, I16, I8, U64, U32, U16, U8 or BOOL)"));
  fs::remove(path);
}

TEST_CASE("safetensors dtypes: saving as F16 or BF16 rounds exactly as torch does",
          "[safetensors]") {
  const auto tensors = load_safetensors(kDtypes);
  const std::string path = temporary_file("narrow.safetensors");
  // F16 from float32 and from float64 (torch goes through float32 first), BF16 from float32.
  for (const auto& [source, floats] :
       {std::pair<const char*, StoredFloats>{"f16.from_f32", StoredFloats::F16},
        {"f16.from_f64", StoredFloats::F16},
        {"bf16.from_f32", StoredFloats::BF16}}) {
    INFO(source);
    SafetensorsSaveOptions options;
    options.floats = floats;
    const Tensor ids = Tensor::from_ids({7, 8}, {2});
    save_safetensors(path, {{"values", tensors.at(source)}, {"ids", ids}}, {}, options);
    const auto loaded = load_safetensors(path);
    CHECK(same_bits_or_both_nan(loaded.at("values"),
                                tensors.at(std::string(source) + ".rounded")));
    CHECK(loaded.at("ids").to_ids() == std::vector<int64_t>{7, 8});  // integers as they are
    // In the file: the 16-bit dtype's name, and two bytes an element after the header.
    std::ifstream file(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    uint64_t header_size = 0;
    std::memcpy(&header_size, bytes.data(), 8);
    const std::string dtype = floats == StoredFloats::F16 ? "F16" : "BF16";
    CHECK_THAT(bytes.substr(8, header_size), Contains("\"dtype\":\"" + dtype + "\""));
    CHECK(bytes.size() - 8 - header_size ==
          static_cast<std::size_t>(2 * tensors.at(source).numel() + 16));
  }
  fs::remove(path);
}

TEST_CASE("safetensors dtypes: the table of stored dtypes", "[safetensors]") {
  CHECK(loaded_dtype(StoredDType::BF16) == DType::Float32);
  CHECK(loaded_dtype(StoredDType::U8) == DType::Int64);
  CHECK(stored_dtype_size(StoredDType::I16) == 2);
  CHECK(*parse_stored_dtype("U32") == StoredDType::U32);
  CHECK_FALSE(parse_stored_dtype("f32").has_value());
  CHECK(stored_dtype_of(DType::Bool) == StoredDType::BOOL);
  CHECK_THROWS_WITH(encode_as_16_bit(StoredDType::F16, Tensor::from_ids({1}, {1})),
                    Contains("int64 tensor cannot be stored as F16"));
}
